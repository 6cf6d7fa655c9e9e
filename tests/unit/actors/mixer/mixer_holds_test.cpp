// The mixer's bookkeeping of held mutes (actors/mixer/mixer_holds.hpp): the state each hold and
// release names, with one holder and with holds that overlap.
#include "actors/mixer/mixer_holds.hpp"

#include <doctest/doctest.h>

using mixerd::mute_holds;

TEST_CASE("a hold names its state and its release the state from before") {
  mute_holds holds;
  CHECK(holds.hold(0, false, true, "0:3") == true);
  CHECK(holds.held(0));
  CHECK(holds.release(0, "0:3") == false);
  CHECK_FALSE(holds.held(0));
  // Muted before: muted after.
  CHECK(holds.hold(0, true, true, "0:3") == true);
  CHECK(holds.release(0, "0:3") == true);
  // Push-to-talk on a muted microphone.
  CHECK(holds.hold(3, true, false, "1:0") == false);
  CHECK(holds.release(3, "1:0") == true);
}

TEST_CASE("a release of what a holder does not hold changes nothing") {
  mute_holds holds;
  CHECK_FALSE(holds.release(0, "0:3"));
  holds.hold(0, false, true, "0:3");
  CHECK_FALSE(holds.release(0, "0:4"));
  CHECK_FALSE(holds.release(1, "0:3"));
  CHECK(holds.held(0));
  CHECK(holds.release(0, "0:3") == false);
  CHECK_FALSE(holds.release(0, "0:3"));  // once
}

TEST_CASE("overlapping holds: the latest holder's state, then the state from before the first") {
  mute_holds holds;
  CHECK(holds.hold(1, false, true, "a") == true);
  // The second hold sees the held state, but the state before the first is what comes back.
  CHECK(holds.hold(1, true, false, "b") == false);
  CHECK(holds.release(1, "b") == true);  // a still holds it muted
  CHECK(holds.hold(1, true, false, "b") == false);
  CHECK(holds.release(1, "a") == false);  // b still holds it unmuted
  CHECK(holds.release(1, "b") == false);  // none left: as before the first
  CHECK_FALSE(holds.held(1));
  // A press that repeats does not stack: one release ends it.
  holds.hold(2, false, true, "a");
  holds.hold(2, true, true, "a");
  CHECK(holds.release(2, "a") == false);
  CHECK_FALSE(holds.held(2));
}
