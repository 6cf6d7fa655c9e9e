/* The audio benchmark's two libpulse programs (tools/bench/audio_bench.py), one binary:
 *
 *   pulse_bench watch
 *   pulse_bench floor PTY_PATH APP...
 *
 * watch: the observer. It subscribes to sink-input events and, for every NEW or CHANGE event,
 * reads the sink input and prints what the server has:
 *   E <ns> n|c|r <index>                                the event, as it arrived
 *   I <ns> <index> <volume min> <volume max> <channels> <writable> <app name>
 *                                                     the sink input as read after it
 * <ns> is CLOCK_MONOTONIC (the driver's time.monotonic_ns() reads the same clock). The driver
 * stops its clock at the first I line that shows the volume it expects.
 *
 * floor: the least work the path from a slider line to a stream's volume can do. It reads
 * `SLIDER,i,v` lines from the pty (the device end is the driver's FakeDevice, as for mixerd) and
 * sets every sink input whose application.name is APP number i (case-insensitive) to v % with
 * pa_context_set_sink_input_volume, as mixerd does (raw = round(v * PA_VOLUME_NORM / 100) on every
 * channel). A sink input of one of the apps that appears gets its slider's last value once its
 * NEW event is read (it must be read to know whose it is, as mixerd must), and is set back when
 * its volume changes to another (mixerd's policy "hold"; PipeWire restores an app's last volume
 * just after its stream appears). One thread, one pa_mainloop, no actors, no allocation.
 *
 * Both print `ready` once subscribed (and, for floor, once the present sink inputs are known),
 * and exit at the end of stdin (the driver closes it).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pulse/context.h>
#include <pulse/error.h>
#include <pulse/introspect.h>
#include <pulse/mainloop.h>
#include <pulse/proplist.h>
#include <pulse/subscribe.h>
#include <pulse/volume.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_APPS 4
#define MAX_STREAMS 64

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static pa_mainloop* loop;
static pa_context* ctx;
static int floor_mode;

/* floor: the apps (one per slider), their sliders' last values (-1: none yet), their streams. */
static const char* apps[MAX_APPS];
static int app_count;
static int values[MAX_APPS];
static struct {
  uint32_t index;
  uint8_t channels;
  int app;
} streams[MAX_STREAMS];
static int stream_count;
static char pending[4096];
static size_t pending_len;

static void unref(pa_operation* op) {
  if (op) pa_operation_unref(op);
}

static int app_of(const pa_sink_input_info* info) {
  const char* name = pa_proplist_gets(info->proplist, PA_PROP_APPLICATION_NAME);
  for (int i = 0; name && i < app_count; ++i)
    if (strcasecmp(name, apps[i]) == 0) return i;
  return -1;
}

static void set_volume(uint32_t index, uint8_t channels, int percent) {
  pa_cvolume volume;
  pa_cvolume_set(&volume, channels, (pa_volume_t)lround(percent * (PA_VOLUME_NORM / 100.0)));
  unref(pa_context_set_sink_input_volume(ctx, index, &volume, NULL, NULL));
}

static void set_app(int app, int percent) {
  values[app] = percent;
  for (int k = 0; k < stream_count; ++k)
    if (streams[k].app == app) set_volume(streams[k].index, streams[k].channels, percent);
}

/* floor: a sink input was read after its NEW or CHANGE event (or listed at start). One of the
 * apps' streams is remembered, and set to its slider's value where it has another volume: at its
 * start, and when something else (the server restoring the app's last volume, the app itself)
 * changed it, as mixerd's default policy (hold) does. */
static void on_floor_stream(pa_context* c, const pa_sink_input_info* info, int eol, void* user) {
  (void)c;
  if (eol) {
    if (user) { /* the end of the list at start */
      printf("ready\n");
      fflush(stdout);
    }
    return;
  }
  int app = info ? app_of(info) : -1;
  if (app < 0) return;
  int k = 0;
  while (k < stream_count && streams[k].index != info->index)
    ++k;
  if (k == stream_count) {
    if (stream_count == MAX_STREAMS) return;
    ++stream_count;
  }
  streams[k].index = info->index;
  streams[k].channels = info->volume.channels;
  streams[k].app = app;
  if (values[app] < 0 || !info->has_volume || !info->volume_writable) return;
  pa_volume_t raw = (pa_volume_t)lround(values[app] * (PA_VOLUME_NORM / 100.0));
  if (pa_cvolume_min(&info->volume) != raw || pa_cvolume_max(&info->volume) != raw)
    set_volume(info->index, info->volume.channels, values[app]);
}

static int known(uint32_t index) {
  for (int k = 0; k < stream_count; ++k)
    if (streams[k].index == index) return 1;
  return 0;
}

static void forget_stream(uint32_t index) {
  for (int k = 0; k < stream_count; ++k)
    if (streams[k].index == index) {
      streams[k] = streams[--stream_count];
      return;
    }
}

/* watch: print what the server has now. */
static void on_watch_info(pa_context* c, const pa_sink_input_info* info, int eol, void* user) {
  (void)c;
  (void)user;
  if (eol || !info) return;
  long long t = now_ns();
  const char* name = pa_proplist_gets(info->proplist, PA_PROP_APPLICATION_NAME);
  printf("I %lld %u %u %u %u %d %s\n", t, info->index, pa_cvolume_min(&info->volume),
         pa_cvolume_max(&info->volume), info->volume.channels,
         info->has_volume && info->volume_writable, name ? name : "");
  fflush(stdout);
}

static void on_event(pa_context* c, pa_subscription_event_type_t type, uint32_t index, void* user) {
  (void)user;
  long long t = now_ns();
  if ((type & PA_SUBSCRIPTION_EVENT_FACILITY_MASK) != PA_SUBSCRIPTION_EVENT_SINK_INPUT) return;
  pa_subscription_event_type_t what = type & PA_SUBSCRIPTION_EVENT_TYPE_MASK;
  if (floor_mode) {
    if (what == PA_SUBSCRIPTION_EVENT_REMOVE)
      forget_stream(index);
    else if (what == PA_SUBSCRIPTION_EVENT_NEW || known(index))
      unref(pa_context_get_sink_input_info(c, index, on_floor_stream, NULL));
    return;
  }
  /* The read is asked for first: the print must not delay it. */
  if (what != PA_SUBSCRIPTION_EVENT_REMOVE)
    unref(pa_context_get_sink_input_info(c, index, on_watch_info, NULL));
  char kind = what == PA_SUBSCRIPTION_EVENT_NEW      ? 'n'
              : what == PA_SUBSCRIPTION_EVENT_CHANGE ? 'c'
                                                     : 'r';
  printf("E %lld %c %u\n", t, kind, index);
  fflush(stdout);
}

static void on_subscribed(pa_context* c, int success, void* user) {
  (void)user;
  if (!success) {
    fprintf(stderr, "pulse_bench: subscribe failed: %s\n", pa_strerror(pa_context_errno(c)));
    pa_mainloop_quit(loop, 1);
    return;
  }
  if (floor_mode) {
    unref(pa_context_get_sink_input_info_list(c, on_floor_stream, (void*)1));
  } else {
    printf("ready\n");
    fflush(stdout);
  }
}

static void on_state(pa_context* c, void* user) {
  (void)user;
  switch (pa_context_get_state(c)) {
    case PA_CONTEXT_READY:
      pa_context_set_subscribe_callback(c, on_event, NULL);
      unref(pa_context_subscribe(c, PA_SUBSCRIPTION_MASK_SINK_INPUT, on_subscribed, NULL));
      break;
    case PA_CONTEXT_FAILED:
      fprintf(stderr, "pulse_bench: %s\n", pa_strerror(pa_context_errno(c)));
      pa_mainloop_quit(loop, 1);
      break;
    default:
      break;
  }
}

/* floor: `SLIDER,i,v` lines; anything else (none is sent) is skipped. */
static void on_line(const char* line) {
  int slider, value;
  if (sscanf(line, "SLIDER,%d,%d", &slider, &value) != 2) return;
  if (slider < 0 || slider >= app_count || value < 0 || value > 100) return;
  set_app(slider, value);
}

static void on_pty(pa_mainloop_api* api, pa_io_event* e, int fd, pa_io_event_flags_t f, void* u) {
  (void)api;
  (void)e;
  (void)f;
  (void)u;
  for (;;) {
    ssize_t n = read(fd, pending + pending_len, sizeof pending - 1 - pending_len);
    if (n <= 0) return; /* EAGAIN: all read; EIO: the device end is gone for now */
    pending_len += (size_t)n;
    pending[pending_len] = '\0';
    char* start = pending;
    char* end;
    while ((end = strchr(start, '\n')) != NULL) {
      *end = '\0';
      if (end > start && end[-1] == '\r') end[-1] = '\0';
      on_line(start);
      start = end + 1;
    }
    pending_len -= (size_t)(start - pending);
    memmove(pending, start, pending_len);
    if (pending_len == sizeof pending - 1) pending_len = 0; /* a line longer than any sent */
  }
}

static void on_stdin(pa_mainloop_api* api, pa_io_event* e, int fd, pa_io_event_flags_t f, void* u) {
  (void)api;
  (void)e;
  (void)f;
  (void)u;
  char sink[256];
  ssize_t n = read(fd, sink, sizeof sink);
  if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) pa_mainloop_quit(loop, 0);
}

int main(int argc, char** argv) {
  floor_mode = argc >= 4 && strcmp(argv[1], "floor") == 0;
  if (!floor_mode && !(argc == 2 && strcmp(argv[1], "watch") == 0)) {
    fprintf(stderr, "usage: pulse_bench watch | pulse_bench floor PTY_PATH APP...\n");
    return 2;
  }
  loop = pa_mainloop_new();
  pa_mainloop_api* api = pa_mainloop_get_api(loop);
  if (floor_mode) {
    int fd = open(argv[2], O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
      perror(argv[2]);
      return 1;
    }
    struct termios tio;
    if (tcgetattr(fd, &tio) == 0) {
      cfmakeraw(&tio);
      tcsetattr(fd, TCSANOW, &tio);
    }
    for (int i = 3; i < argc && app_count < MAX_APPS; ++i) {
      apps[app_count] = argv[i];
      values[app_count++] = -1;
    }
    api->io_new(api, fd, PA_IO_EVENT_INPUT, on_pty, NULL);
  }
  api->io_new(api, STDIN_FILENO, PA_IO_EVENT_INPUT | PA_IO_EVENT_HANGUP, on_stdin, NULL);
  ctx = pa_context_new(api, floor_mode ? "pulse_bench floor" : "pulse_bench watch");
  pa_context_set_state_callback(ctx, on_state, NULL);
  if (pa_context_connect(ctx, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
    fprintf(stderr, "pulse_bench: %s\n", pa_strerror(pa_context_errno(ctx)));
    return 1;
  }
  int code = 0;
  pa_mainloop_run(loop, &code);
  pa_context_disconnect(ctx);
  pa_context_unref(ctx);
  pa_mainloop_free(loop);
  return code;
}
