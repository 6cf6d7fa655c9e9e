// Fuzz target: a profile file as the profile actor reads it (protocol/profiles parse_profile),
// and the input as a file name (name_of_file, when the folder is listed) and as a name
// (name_problem, file_name_of, when the API creates one).
// Checked: an accepted file has a valid name whose file name decodes back to it, obeys the
// bounds, and serialize -> parse gives it back byte for byte (every save rewrites the file); a
// decoded file name is exactly the file name of a valid name; a valid name's file name has no
// byte outside A-Z a-z 0-9 - _ % before ".json" and decodes back to the name.
#include <cstdint>
#include <string>

#include "protocol/profiles.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace mixerd;

bool plain_or_escape(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '%';
}

// C0, DEL, or C1 (U+0080-U+009F: 0xC2 0x80-0x9F in UTF-8).
bool has_control(const std::string& name) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F) return true;
    if (c == 0xC2 && i + 1 < name.size() && static_cast<unsigned char>(name[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(name[i + 1]) <= 0x9F)
      return true;
  }
  return false;
}

void check_name(const std::string& name, const std::string& context) {
  if (!profiles::name_problem(name).empty()) {
    // Refused: empty, too long, not UTF-8 or a control character (never a valid short name).
    FUZZ_CHECK(name.empty() || name.size() > profiles::max_name_bytes || !fuzz::valid_utf8(name) ||
                   has_control(name),
               context);
    return;
  }
  FUZZ_CHECK(name.size() >= 1 && name.size() <= profiles::max_name_bytes, context);
  FUZZ_CHECK(fuzz::valid_utf8(name) && !has_control(name), context);
  const auto file = profiles::file_name_of(name);
  FUZZ_CHECK(file.size() <= profiles::max_name_bytes * 3 + 5, context);
  FUZZ_CHECK(file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0, context);
  for (std::size_t i = 0; i + 5 < file.size(); ++i)
    FUZZ_CHECK(plain_or_escape(file[i]), context + " -> " + file);
  FUZZ_CHECK(profiles::name_of_file(file) == name, context + " -> " + file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  const std::string context(text);

  check_name(context, context);
  if (auto name = profiles::name_of_file(text)) {
    FUZZ_CHECK(profiles::name_problem(*name).empty(), context);
    FUZZ_CHECK(profiles::file_name_of(*name) == context, context);
  }

  const auto parsed = profiles::parse_profile(text);
  if (!parsed.file) {
    FUZZ_CHECK(!parsed.error.empty(), context);
    return 0;
  }
  const auto& file = *parsed.file;
  FUZZ_CHECK(text.size() <= profiles::max_file_bytes, context);
  check_name(file.name, context);
  FUZZ_CHECK(file.icon.size() <= profiles::max_icon_bytes, context);
  for (const auto& s : file.content.mix.sliders) {
    FUZZ_CHECK(s.value >= 0 && s.value <= 100, context);
    FUZZ_CHECK(s.label.size() <= profiles::max_label_bytes, context);
  }
  FUZZ_CHECK(file.content.mix.master_volume >= 0 && file.content.mix.master_volume <= 100, context);
  for (int i = 0; i < 4; ++i)
    FUZZ_CHECK(file.content.mix.sliders[i].muted == file.content.mix.mutes.individual[i], context);

  const std::string saved = profiles::serialize(file);
  const auto again = profiles::parse_profile(saved);
  FUZZ_CHECK(again.file.has_value(), context + " -> " + saved + " : " + again.error);
  FUZZ_CHECK(profiles::serialize(*again.file) == saved, context + " -> " + saved);
  FUZZ_CHECK(again.file->name == file.name && again.file->icon == file.icon, context);
  return 0;
}
