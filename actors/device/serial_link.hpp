// Byte I/O of the device link on the shared Asio io_context, through Asio's serial_port: one
// path for a real ttyACM and for a pseudo-terminal (libserialport 0.1.1 cannot open a pty;
// libserialport 0.1.1 cannot read a pty's modem lines: TIOCMGET fails). It frames lines and reports
// them, and a hang-up, to the device actor as messages tagged with the connection's generation, so
// late messages of an old connection are recognised and dropped.
//
// Messages sent to `owner`:
//   (opened_atom, uint64_t gen)
//   (line_atom, uint64_t gen, std::string line, bool overlong)
//   (closed_atom, uint64_t gen, std::string reason)
#pragma once

#include <caf/actor.hpp>
#include <cstdint>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}

namespace mixerd {

class serial_link {
 public:
  virtual ~serial_link() = default;
  // Queues one line (without terminator); a '\n' is appended.
  virtual void write_line(std::string line) = 0;
  // Closes the port; no further messages reach the owner.
  virtual void close() = 0;
};

// Opens `path` at 2,000,000 baud 8N1 on the io thread and starts reading. Failure to open is
// reported as (closed_atom, gen, reason).
std::shared_ptr<serial_link> open_serial_link(boost::asio::io_context& io, std::string path,
                                              caf::actor owner, std::uint64_t generation);

}  // namespace mixerd
