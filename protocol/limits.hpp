// Every numeric limit of the interfaces, in one place (validation reads these).
#pragma once

#include <chrono>
#include <cstddef>

namespace mixerd::limits {

// Device link (protocol/README.md).
inline constexpr std::size_t max_line_bytes = 255;  // without the terminating '\n'
inline constexpr unsigned serial_baud = 2'000'000;
inline constexpr auto ping_interval = std::chrono::milliseconds(2000);
inline constexpr auto silence_timeout = std::chrono::milliseconds(6000);
inline constexpr auto reconnect_backoff_min = std::chrono::milliseconds(500);
inline constexpr auto reconnect_backoff_max = std::chrono::milliseconds(5000);
inline constexpr auto port_scan_interval = std::chrono::milliseconds(1000);

// Hardware shape.
inline constexpr int slider_count = 4;
inline constexpr int mute_count = 4;
inline constexpr int macro_count = 9;  // per page
inline constexpr int macro_page_count = 4;

// Values.
inline constexpr int volume_min = 0;
inline constexpr int volume_max = 100;
inline constexpr int encoder_step = 2;  // master volume change per detent

// HTTP.
inline constexpr std::size_t http_body_max = 64 * 1024;
inline constexpr std::size_t http_header_max = 16 * 1024;
inline constexpr auto http_idle_timeout = std::chrono::seconds(30);

// Notification interface (docs/api.md).
inline constexpr std::size_t toast_message_max_chars = 30;
inline constexpr std::size_t toast_subtitle_max_chars = 40;
inline constexpr int toast_duration_min = 1000;
inline constexpr int toast_duration_max = 30000;
inline constexpr int toast_duration_default = 3000;
inline constexpr std::size_t toast_rate_max_requests = 30;  // per address and window
inline constexpr auto toast_rate_window = std::chrono::seconds(60);
inline constexpr std::size_t toast_rate_max_addresses = 4096;  // limiter memory bound
inline constexpr std::size_t toast_history_size = 16;
// The body of POST /api/config/import: a whole configuration, profiles and all.
inline constexpr std::size_t config_import_max_bytes = 8 * 1024 * 1024;
// Versions of the configuration kept in DATA_DIR/history/ (docs/api/settings.md).
inline constexpr std::size_t config_history_size = 50;

// Event fan-out: subscribers of the hub at once (actors, plugin bridges, Socket.IO sessions).
inline constexpr std::size_t hub_max_subscribers = 4096;

// Engine.IO sessions open at once (settings socketio_max_sessions and
// socketio_max_sessions_per_address; docs/api.md). A handshake costs the client one GET and the
// daemon a session of about 2.5 KB that lives up to 45 s, so without a cap one client held a
// gigabyte. A home's controllers are a few phones, tablets and browser tabs (one session each)
// and some plugin bridges; the fan-out is measured with 1,000 joined clients, so 2,000 in all
// leaves that room twice over for about 5 MB of session state. One address is one device (or one
// NAT or proxy): 32 covers its tabs, reloads and reconnects while old polling sessions linger up
// to a ping timeout, and a flood from one address then takes at most 32 of the 2,000 places.
inline constexpr std::size_t socketio_max_sessions = 2000;
inline constexpr std::size_t socketio_max_sessions_per_address = 32;

// Bytes waiting for one client before it is dropped as not reading: a polling session's queue,
// a websocket's frames not yet taken by the kernel, live events held behind a state answer. The
// frame count bound (socketio max_queued_packets) alone let a stalled client hold 1000 copies of
// the largest event (the whole macro set after each edit, then 2.3 MB: 2.3 GB); the largest event
// is now about 1 MiB (macros::max_set_bytes), so a client that keeps up never nears this. Queued
// frames are shared by every client that waits for them; what one client holds alone (its
// websocket's staged copy and the write on its way) counts here too.
inline constexpr std::size_t client_queue_max_bytes = 4 * 1024 * 1024;

// Settings persistence: changes are coalesced and written at most this often.
inline constexpr auto settings_flush_delay = std::chrono::milliseconds(250);

// Requests between actors and from the gateways: an answer that does not come within this is an
// internal error (logged), never a hang. A login waits longer: password checks queue.
inline constexpr auto actor_request_timeout = std::chrono::seconds(10);
inline constexpr auto login_request_timeout = std::chrono::seconds(60);
// Saving settings at shutdown (an fsync on a slow SD card).
inline constexpr auto shutdown_flush_timeout = std::chrono::seconds(30);

}  // namespace mixerd::limits
