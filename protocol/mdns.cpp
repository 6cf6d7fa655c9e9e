#include "protocol/mdns.hpp"

#include "protocol/settings_schema.hpp"
#include "protocol/types.hpp"

namespace mixerd::mdns {

bool enabled_in(const nlohmann::json& settings) {
  auto it = settings.find(settings_key);
  return it == settings.end() || !it->is_boolean() || it->get<bool>();
}

std::string instance_name(std::string_view host_name) {
  std::string name = "mixerd on " + std::string(host_name.empty() ? "localhost" : host_name);
  if (name.size() <= max_name_bytes) return name;
  std::size_t cut = max_name_bytes;
  // Back to the first byte of a character (continuation bytes are 10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
    --cut;
  name.resize(cut);
  return name;
}

std::vector<service_record> records_for(const mdns_listening& where) {
  const std::vector<std::string> txt{"path=/", "version=" + std::string(app_version)};
  return {{where.tls ? "_https._tcp" : "_http._tcp", where.port, txt},
          {std::string(mixerd_type), where.port, txt}};
}

}  // namespace mixerd::mdns

namespace mixerd {

// ---- Settings: mdns ---------------------------------------------------------------------------

settings_schema::part mdns_settings() {
  return {
      "mdns",
      {{"mdns",
        settings_schema::boolean_schema(
            true, "Advertise the controller by mDNS (_http._tcp, _mixerd._tcp) through Avahi")}}};
}

}  // namespace mixerd
