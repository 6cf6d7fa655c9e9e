// The mutes held by hold buttons (macro kinds hold_mute and hold_unmute; protocol/README.md,
// "Macros"). Pure bookkeeping of the mixer actor: which holder holds which mute at what state,
// and the state each mute had before its first hold. The mixer applies the state each call
// names, so a hold takes the same path (events, device, audio server, settings) as a mute
// button.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mixerd {

class mute_holds {
 public:
  // `holder` holds mute `index` (muted `now`) at `muted`: the state the mute takes. A holder
  // that already holds it takes its place again as the latest (a press that repeats).
  bool hold(int index, bool now, bool muted, const std::string& holder);
  // `holder` lets go of mute `index`: the state the mute takes (the latest remaining holder's,
  // or the state before the first hold once none is left), or nullopt when `holder` held
  // nothing there (nothing changes).
  std::optional<bool> release(int index, const std::string& holder);
  bool held(int index) const { return by_index_.count(index) != 0; }

 private:
  struct holder_state {
    std::string holder;
    bool muted = true;
  };
  struct held_mute {
    bool before = false;
    std::vector<holder_state> holders;  // in the order of their presses: the last is in effect
  };
  std::map<int, held_mute> by_index_;
};

}  // namespace mixerd
