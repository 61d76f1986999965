"""Push-to-talk and typed lines for the listen loop.

``--push-to-talk`` takes ``key`` (Enter on the terminal: a tap arms the next
utterance), ``gpio:PIN`` (a button on a Raspberry Pi, through gpiozero: held
while talking, or tapped) or ``evdev:DEVICE[:KEY_NAME]`` (a key of any Linux
input device, for a service without a terminal).  gpiozero and evdev are
imported only when asked for; their absence is a clear ``OptionsError``.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable, Iterable
from typing import IO, Any, Protocol

from ...errors import OptionsError


class Armable(Protocol):
    def press(self, t: float | None = None) -> None: ...

    def release(self, t: float | None = None) -> None: ...

    def submit_text(self, line: str) -> None: ...


def read_lines(stream: IO[str], loop: Armable, tap_on_empty: bool,
               on_end: Callable[[], None] | None = None) -> threading.Thread:
    """A daemon thread feeding ``stream``'s lines to the loop: typed commands, and
    (``tap_on_empty``) an empty line as a push-to-talk tap; ``on_end`` when the stream ends."""
    from ...textplay import FdLines, lines_of

    try:   # a reader of its own descriptor: a buffered stdin waited on by a daemon thread holds
        source: Iterable[str] = lines_of(FdLines(stream.fileno()))   # its lock, aborting the exit
    except (AttributeError, OSError, ValueError):
        source = stream    # no descriptor (a test's text)

    def run() -> None:
        try:
            for line in source:
                text = line.strip()
                if not text:
                    if tap_on_empty:
                        loop.press()
                        loop.release()
                    continue
                loop.submit_text(text)
        except (OSError, ValueError, UnicodeDecodeError):
            pass  # stdin closed or unreadable: voice goes on
        if on_end is not None:
            on_end()

    thread = threading.Thread(target=run, name="facilitator-stdin", daemon=True)
    thread.start()
    return thread


def check_spec(spec: str) -> None:
    """OptionsError for a ``--push-to-talk`` value that names no known kind."""
    kind, _, rest = spec.partition(":")
    if kind not in ("key", "gpio", "evdev") or (kind == "key" and rest):
        raise OptionsError(f"unknown --push-to-talk {spec!r}: key, gpio:PIN or evdev:DEVICE[:KEY_NAME]")
    if kind != "key" and not rest:
        raise OptionsError(f"--push-to-talk {kind} needs {'a pin, like gpio:17' if kind == 'gpio' else 'a device, like evdev:/dev/input/event0'}")


def check_available(spec: str, stdin: IO[str] | None = None) -> None:
    """OptionsError, before any game starts, when ``spec`` cannot work on this machine."""
    check_spec(spec)
    kind = spec.partition(":")[0]
    if kind == "key" and not (stdin if stdin is not None else sys.stdin).isatty():
        raise OptionsError("--push-to-talk key needs a terminal; on a service use gpio:PIN or "
                           "evdev:DEVICE")
    needs = {"gpio": ("gpiozero", "gpio:PIN"), "evdev": ("evdev", "evdev:DEVICE")}.get(kind)
    if needs is not None and importlib.util.find_spec(needs[0]) is None:
        raise OptionsError(f"--push-to-talk {needs[1]} needs {needs[0]} (pip install {needs[0]})")


def start(spec: str, loop: Armable, stdin: IO[str] | None = None) -> Callable[[], None]:
    """Start push-to-talk per ``spec``; return a function that stops it."""
    check_spec(spec)
    kind, _, rest = spec.partition(":")
    if kind == "key":
        stream = stdin if stdin is not None else sys.stdin
        if not stream.isatty():
            raise OptionsError("--push-to-talk key needs a terminal; on a service use gpio:PIN or "
                               "evdev:DEVICE")
        read_lines(stream, loop, tap_on_empty=True)
        return lambda: None
    if kind == "gpio":
        return _gpio(rest, loop)
    if kind == "evdev":
        return _evdev(rest, loop)
    raise OptionsError(f"unknown --push-to-talk {spec!r}: key, gpio:PIN or evdev:DEVICE[:KEY_NAME]")


def _gpio(pin: str, loop: Armable) -> Callable[[], None]:
    if not pin:
        raise OptionsError("--push-to-talk gpio needs a pin, like gpio:17")
    try:
        from gpiozero import Button  # type: ignore[import-not-found]
        from gpiozero.exc import GPIOZeroError  # type: ignore[import-not-found]
    except ImportError:
        raise OptionsError("--push-to-talk gpio:PIN needs gpiozero (pip install gpiozero)") from None
    try:
        button: Any = Button(int(pin) if pin.isdigit() else pin)
    except (GPIOZeroError, OSError, ValueError) as exc:  # BadPinFactory and friends: no GPIO here
        raise OptionsError(f"cannot use GPIO pin {pin!r} for push-to-talk: {exc}") from None
    button.when_pressed = lambda: loop.press()
    button.when_released = lambda: loop.release()
    return lambda: button.close()


def _evdev(spec: str, loop: Armable) -> Callable[[], None]:
    path, _, key_name = spec.partition(":")
    if not path:
        raise OptionsError("--push-to-talk evdev needs a device, like evdev:/dev/input/event0")
    try:
        import evdev  # type: ignore[import-not-found]
    except ImportError:
        raise OptionsError("--push-to-talk evdev:DEVICE needs evdev (pip install evdev)") from None
    key_name = key_name or "KEY_SPACE"
    code = evdev.ecodes.ecodes.get(key_name)
    if code is None:
        raise OptionsError(f"unknown key {key_name!r} for push-to-talk (like KEY_SPACE)")
    try:
        device = evdev.InputDevice(path)
    except OSError as exc:
        raise OptionsError(f"cannot open input device {path!r} for push-to-talk: {exc}") from None
    stopped = threading.Event()

    def run() -> None:
        try:
            for event in device.read_loop():
                if stopped.is_set():
                    return
                if event.type == evdev.ecodes.EV_KEY and event.code == code:
                    if event.value == 1:
                        loop.press()
                    elif event.value == 0:
                        loop.release()
        except OSError:
            return  # the device went away: the loop stays gated

    threading.Thread(target=run, name="facilitator-evdev", daemon=True).start()

    def stop() -> None:
        stopped.set()
        device.close()

    return stop
