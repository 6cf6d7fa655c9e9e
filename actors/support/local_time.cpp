#include "actors/support/local_time.hpp"

#include <ctime>

namespace mixerd {

std::string local_timestamp() {
  return local_timestamp(std::time(nullptr));
}

std::string local_timestamp(std::time_t when) {
  std::tm local{};
  ::localtime_r(&when, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &local);
  return text;
}

}  // namespace mixerd
