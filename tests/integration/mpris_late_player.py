"""A minimal MPRIS player that takes its bus name before it can answer, as some players do while
they start: until `serve`, a read of its properties fails (and it prints `refused <interface>`).
Driven over stdin, one command per line: `serve`, then `play` changes PlaybackStatus to Playing
and signals it. Prints `ready` once it owns its name. Run with /usr/bin/python3 (python3-dbus,
python3-gi)."""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"
PATH = "/org/mpris/MediaPlayer2"


class Player(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.status = "Paused"
        self.serving = False

    def values(self, interface):
        if interface == ROOT:
            return {"Identity": "Late Player"}
        if interface == PLAYER:
            return {"PlaybackStatus": self.status,
                    "Metadata": dbus.Dictionary({"xesam:title": "Late Tone"}, signature="sv")}
        return {}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if not self.serving:
            print("refused " + interface, flush=True)
            raise dbus.exceptions.DBusException("still starting",
                                                name="org.freedesktop.DBus.Error.Failed")
        return dbus.Dictionary(self.values(interface), signature="sv")

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    player = Player(bus)
    name = dbus.service.BusName(ROOT + ".late", bus)  # noqa: F841 (held while running)
    loop = GLib.MainLoop()

    def on_line(source, condition):
        line = sys.stdin.readline().strip()
        if not line:
            loop.quit()
            return False
        if line == "serve":
            player.serving = True
        elif line == "play":
            player.status = "Playing"
            player.PropertiesChanged(PLAYER, {"PlaybackStatus": "Playing"}, [])
        print("done " + line, flush=True)
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_line)
    print("ready", flush=True)
    loop.run()


main()
