#include "actors/profiles/profile_list.hpp"

#include <algorithm>

#include "actors/profiles/profile_folder.hpp"
#include "actors/profiles/profiles_actor.hpp"
#include "actors/support/local_time.hpp"
#include "actors/support/log.hpp"

namespace mixerd {

namespace profile_list {

list_type::iterator find(list_type& list, const std::string& name) {
  return std::find_if(list.begin(), list.end(),
                      [&](const profile_summary& p) { return p.name == name; });
}

bool usable(const profile_summary& p) {
  return p.error.empty();
}

void put(list_type& list, profile_summary summary) {
  auto at = std::lower_bound(
      list.begin(), list.end(), summary.name,
      [](const profile_summary& p, const std::string& name) { return p.name < name; });
  if (at != list.end() && at->name == summary.name)
    *at = std::move(summary);
  else
    list.insert(at, std::move(summary));
}

std::string choose_current(const list_type& list, const std::string& wanted) {
  auto named = [&](const std::string& name) {
    return std::find_if(list.begin(), list.end(),
                        [&](const profile_summary& p) { return p.name == name; });
  };
  if (!wanted.empty() && named(wanted) != list.end()) return wanted;
  const std::string fallback(profiles::default_name);
  if (auto d = named(fallback); d != list.end() && usable(*d)) return fallback;
  if (auto u = std::find_if(list.begin(), list.end(), usable); u != list.end()) return u->name;
  return list.empty() ? fallback : list.front().name;
}

std::string current_from(const nlohmann::json& settings) {
  auto it = settings.find(std::string(profiles::current_key));
  return it != settings.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace profile_list

namespace {
constexpr std::string_view component = "profiles";
}  // namespace

using namespace profile_list;

profiles_opened open_profiles(const std::string& folder, const nlohmann::json& settings,
                              const profile_content& initial) {
  profiles_opened out;
  if (auto ec = profile_folder::ensure(folder))
    log::error(component, "cannot create ", folder, ": ", ec.message());
  profile_folder::remove_leftover_temporaries(folder);
  out.profiles = profile_folder::list(folder);
  const std::string default_name(profiles::default_name);
  const bool any_usable = std::any_of(out.profiles.begin(), out.profiles.end(), usable);
  if (!any_usable && find(out.profiles, default_name) == out.profiles.end()) {
    profiles::profile_file file;
    file.name = default_name;
    file.created = file.updated = local_timestamp();
    file.content = initial;
    if (auto ec = profile_folder::write(folder, file)) {
      log::error(component, "cannot write ", profile_folder::path_of(folder, default_name), ": ",
                 ec.message());
    } else {
      log::info(component, "made profile '", default_name, "' from the current state");
      put(out.profiles, profiles::summary_of(file));
    }
  }
  const std::string wanted = current_from(settings);
  out.current = choose_current(out.profiles, wanted);
  out.current_changed = out.current != wanted;
  if (out.current_changed && !wanted.empty())
    log::warn(component, "current profile '", wanted, "' is not in ", folder, "; '", out.current,
              "' is current now");
  log::info(component, out.profiles.size(), " profiles in ", folder, ", current '", out.current,
            "'");
  return out;
}

profile_content current_content(const profiles_wiring& wiring) {
  mixer_snapshot mix;
  if (wiring.mixer_state)
    if (auto latest = wiring.mixer_state->load()) mix = latest->mix;
  macro_pages pages = macros::default_pages();
  if (wiring.macros_state)
    if (auto latest = wiring.macros_state->load()) pages = latest->set;
  return profiles::content_of(mix, pages);
}

}  // namespace mixerd
