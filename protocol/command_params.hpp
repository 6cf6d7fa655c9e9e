// The typed parameters of a command (docs/api.md, "Commands"): what each front end lists and
// how one JSON object of arguments is read and checked, with the wording of the API's 400
// answers ("Missing field: value", "value must be an integer from 0 to 100"). Pure.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mixerd {

// A command to run by name with its arguments: what a macro kind or an MQTT message stands for.
struct command_request {
  std::string name;
  nlohmann::json args;
};

}  // namespace mixerd

namespace mixerd::commands {

enum class param_type { integer, string, boolean, object, array };
std::string_view to_string(param_type type);

// Who may run a command. A front end grants some of these to the caller it serves.
enum class permission {
  control,  // whoever may use the controller (its login rule), MQTT, OSC, plugins, macros
  local,    // code that runs on the machine only: plugins and macros
  // A caller who may aim mixerd at the network (an http macro): with login on, whoever logged
  // in; with login off, a client on loopback whose request comes from no other web origin; and
  // local code (protocol/README.md, "Who may aim mixerd at the network").
  trusted,
  toast_api_key,      // the holder of the notification API key (the notification listener)
  plant_store_token,  // the holder of the plant store's token (the plant store listener)
};
std::string_view to_string(permission p);

// The request header that carries a macro run's depth to whoever an http macro calls, and brings
// it back when that is mixerd's API (command_origin::depth).
inline constexpr std::string_view depth_header = "X-Mixerd-Macro-Depth";
// Its value: a number from 0 to 99 (larger reads as 99), 0 when absent or not a number.
int depth_from_header(std::string_view value);

// Why arguments were refused: the sentence names the field; 400, or 403 for something the
// caller may not do (a command macro from the network).
struct problem {
  std::string text;
  int status = 400;
};

struct param {
  std::string_view name;
  param_type type = param_type::integer;
  std::string_view description;
  bool required = true;
  // integer: the range, when `ranged`.
  bool ranged = false;
  long long min = 0;
  long long max = 0;
  // string: one of these (when not empty), at most this many bytes (0: no limit), and free text
  // that reaches the device (\r \n \t become spaces, any other control byte is refused).
  std::vector<std::string_view> values;
  std::size_t max_bytes = 0;
  bool device_text = false;
  // boolean: a JSON null reads as absent (the API's optional switches).
  bool null_is_absent = false;
  // A reader of its own, where an interface's wording differs from the common one: reads
  // input[name] (or several fields) into args, or fills `why` and returns false.
  bool (*read)(const nlohmann::json& input, nlohmann::json& args, problem& why) = nullptr;
};

// Declarations, e.g. integer("value", 0, 100, "The slider's new value").
param integer(std::string_view name, long long min, long long max, std::string_view description);
param text(std::string_view name, std::size_t max_bytes, std::string_view description);
param choice(std::string_view name, std::vector<std::string_view> values,
             std::string_view description);
param flag(std::string_view name, std::string_view description);
param object(std::string_view name, std::string_view description);
// The same parameter, not required.
param optional(param p);

// Reads `input` (a JSON object) against `params`, in their order: the arguments as checked
// (absent optional ones left out, free text cleaned), or nullopt with the first problem in
// `why`, naming the field. Keys that are no parameter are ignored.
std::optional<nlohmann::json> read_args(const std::vector<param>& params,
                                        const nlohmann::json& input, problem& why);

// {"name", "type", "required", "description", "min"/"max" (ranged integers), "values",
// "max_bytes"}: one parameter as GET /api/commands lists it.
nlohmann::json to_json(const param& p);

}  // namespace mixerd::commands
