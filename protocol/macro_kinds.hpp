// The kinds of macro (docs/api.md, "Macros"). The macro capability has its own (none, hotkey,
// command, http, sequence, and the delay step); every other kind is declared by the capability
// it acts on, in its own protocol source (mute and volume by the mixer, stream_scene by the
// streaming software, ...), with how its fields are read and the command it runs. The daemon
// installs the kinds its capability rows list before it reads any settings, so that a kind of a
// capability this build leaves out is still read and kept (and fails when it runs, "not
// available"). Pure: no I/O.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/command_params.hpp"
#include "protocol/macros.hpp"

namespace mixerd::macros {

namespace detail {

// The first problem of a parse: the field it is about (a path such as "steps[2].url", empty for
// the value itself) and what is wrong with it.
struct failure {
  std::string field;
  std::string message;
  bool missing = false;  // the field is absent ("Missing field: <field>")
  bool forbidden = false;
};

// The 400 sentence of a failure.
std::string sentence(const failure& f);
// "must be an integer from lo to hi".
std::string range_text(long long lo, long long hi);
// Unicode characters of valid UTF-8 text.
std::size_t utf8_chars(const std::string& text);

// Reads one Macro object (any installed kind, `command` only from settings) into its stored
// form.
std::optional<macro> read_macro(const nlohmann::json& j, origin from, failure& f);

}  // namespace detail

// One Macro object being read into its stored form: the kind's reader takes its own fields
// through this (each helper writes the field into `out` or records the problem and returns
// false).
class field_reader {
 public:
  field_reader(const nlohmann::json& in, std::string prefix, origin from)
      : in_(in), prefix_(std::move(prefix)), from_(from) {}

  const nlohmann::json& in() const { return in_; }
  origin from() const { return from_; }
  const std::string& prefix() const { return prefix_; }
  nlohmann::json out = nlohmann::json::object();
  std::optional<detail::failure> failed;

  const nlohmann::json* find(const char* name) const;
  bool fail(const std::string& name, std::string message);
  bool missing(const std::string& name);
  // The whole macro is refused with 403 (only settings.json may hold it): `whole` as the
  // sentence of a macro, `as_step` after the step's name when it is a step of a sequence.
  bool forbid(std::string whole, std::string as_step);

  // A string of at most `max_bytes`; free text for the device when `device`.
  bool text(const char* name, std::size_t max_bytes, bool required, bool non_empty,
            bool device = true);
  // A string that must be one of `allowed` (stored as given); `fallback` when absent (null:
  // required).
  bool one_of(const char* name, std::initializer_list<std::string_view> allowed,
              const char* fallback);
  bool integer(const char* name, long long lo, long long hi, bool required);
  // `target`: 1-4 or "master".
  bool target();
  // The steps of a sequence: each a delay or a macro of a kind that may be a step.
  bool steps(const char* name, std::size_t max_steps);

  // Reads the object into `out`: "type", "name", "icon", then the kind's own fields.
  bool read(bool as_step);

 private:
  const nlohmann::json& in_;
  std::string prefix_;
  origin from_;
};

struct kind {
  std::string_view type;  // the Macro object's "type"
  bool step = true;       // may be a step of a sequence
  // Reads the kind's own fields (after name and icon); null: it has none.
  bool (*read)(field_reader& r) = nullptr;
  // The command that runs a stored macro of this kind; null: the macro capability runs it itself
  // (hotkey, command, http, sequence).
  command_request (*command)(const nlohmann::json& fields) = nullptr;
  // A hold kind (hold_mute, hold_unmute): `command` runs when the button goes down
  // (MACRO,<i>,PRESS) and this one when it comes up again (MACRO,<i>,RELEASE). The macro actor
  // adds the argument `holder` (the slot, "page:index") to both, so that the owner can tell
  // holds apart. Null: the kind runs once, on a press.
  command_request (*release)(const nlohmann::json& fields) = nullptr;
  bool held() const { return release != nullptr; }
};
using kind_list = std::vector<kind>;

// The macro capability's own kinds: none, hotkey, command, http, sequence.
kind_list own_kinds();

// Installs the kinds of every capability (the own kinds first, whatever `others` holds), for the
// whole process: call once at start-up, before any macro is read. Until then only the own kinds
// are known.
void install_kinds(const std::vector<kind_list>& others);
// The kind of that type, or null.
const kind* find_kind(std::string_view type);

}  // namespace mixerd::macros
