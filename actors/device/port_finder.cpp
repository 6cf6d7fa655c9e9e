#include "actors/device/port_finder.hpp"

#include <libserialport.h>

namespace mixerd {

std::vector<serial_port_info> list_usb_serial_ports() {
  std::vector<serial_port_info> result;
  sp_port** ports = nullptr;
  if (sp_list_ports(&ports) != SP_OK) return result;
  for (sp_port** p = ports; *p != nullptr; ++p) {
    if (sp_get_port_transport(*p) != SP_TRANSPORT_USB) continue;
    int vid = -1;
    int pid = -1;
    if (sp_get_port_usb_vid_pid(*p, &vid, &pid) != SP_OK) continue;
    serial_port_info info;
    info.path = sp_get_port_name(*p);
    if (const char* d = sp_get_port_description(*p)) info.description = d;
    info.vid = vid;
    info.pid = pid;
    result.push_back(std::move(info));
  }
  sp_free_port_list(ports);
  return result;
}

std::optional<serial_port_info> pick_device_port(const std::vector<serial_port_info>& ports) {
  for (const auto& p : ports)
    if (p.vid == device_usb_vid && p.pid == device_usb_pid) return p;
  for (const auto& p : ports)
    if (p.vid == espressif_usb_vid) return p;
  return std::nullopt;
}

}  // namespace mixerd
