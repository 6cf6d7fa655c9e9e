"""Now playing: when the music player's track changes, the device shows the title and the
artist (and the album, with the setting `show_album`)."""
from mixerd import Plugin

TITLE_MAX = 30
TEXT_MAX = 40


def shorten(text, limit):
    return text if len(text) <= limit else text[: limit - 1] + "…"


class NowPlaying(Plugin):
    def on_music_track_change(self, track_info):
        # track_info is the Music state: player, status, title, artist, album, art_url, length_ms.
        title = track_info.get("title") or "Unknown title"
        parts = [track_info.get("artist") or track_info.get("player") or ""]
        if self.get_setting("show_album") and track_info.get("album"):
            parts.append(track_info["album"])
        text = " - ".join(part for part in parts if part)
        self.show_notification(shorten(title, TITLE_MAX), shorten(text, TEXT_MAX))
