#include "protocol/types.hpp"

namespace mixerd {

std::string_view to_string(assignment_type type) {
  switch (type) {
    case assignment_type::system_default_output:
      return "system_default_output";
    case assignment_type::system_default_input:
      return "system_default_input";
    case assignment_type::app:
      return "app";
    case assignment_type::unmapped:
      return "unmapped";
    case assignment_type::unassigned:
      break;
  }
  return "unassigned";
}

std::string_view to_string(plugin_state state) {
  switch (state) {
    case plugin_state::starting:
      return "starting";
    case plugin_state::running:
      return "running";
    case plugin_state::failed:
      return "failed";
    case plugin_state::invalid:
      return "invalid";
    case plugin_state::incompatible:
      return "incompatible";
    case plugin_state::stopped:
      break;
  }
  return "stopped";
}

std::optional<assignment_type> assignment_type_from_string(std::string_view name) {
  if (name == "unassigned") return assignment_type::unassigned;
  if (name == "system_default_output") return assignment_type::system_default_output;
  if (name == "system_default_input") return assignment_type::system_default_input;
  if (name == "unmapped") return assignment_type::unmapped;
  if (name == "app" || name == "specific_app") return assignment_type::app;
  return std::nullopt;
}

std::string default_slider_label(int index) {
  return "Slider " + std::to_string(index);
}

}  // namespace mixerd
