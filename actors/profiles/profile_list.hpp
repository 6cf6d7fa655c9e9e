// The list of profiles the folder holds (sorted by name, broken files listed with their error)
// and the choice of the current one; and the folder's opening at start and on SIGHUP. Used by the
// profile actor only (actors/profiles/profiles_actor.cpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/profiles.hpp"

namespace mixerd::profile_list {

using list_type = std::vector<profile_summary>;

list_type::iterator find(list_type& list, const std::string& name);
// A profile whose file reads (not broken).
bool usable(const profile_summary& p);
// Puts or replaces `summary`, keeping the list sorted by name.
void put(list_type& list, profile_summary summary);
// The current profile: `wanted` when listed, else Default, else the first usable one, else the
// first one (a folder of broken files only).
std::string choose_current(const list_type& list, const std::string& wanted);
// current_profile of the settings; empty when absent.
std::string current_from(const nlohmann::json& settings);

}  // namespace mixerd::profile_list
