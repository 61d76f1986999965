"""The screens' web app: routes, access checks and live updates (server-sent events).

Routes:

* ``GET /table/{key}`` sets the table cookie and opens ``/table`` (the key is printed
  by ``play``); ``/table``, its events and its commands need that cookie.
* ``GET /join/{token}``: the first device holds the seat (HttpOnly cookie) and goes
  to ``/seat/{n}``; any other device is refused.  ``GET/POST /join`` takes a short code.
* ``/seat/{n}``, ``/seat/{n}/events``, ``POST /seat/{n}/command``: only for the device
  holding seat n.  A refused request gets a page saying why and nothing private.
* ``POST /seat/{n}/talk...``: the seat's phone as a microphone (``talk_routes``).
* ``POST /table-release/{n}`` frees a seat (a new link for it; 404 for no such seat)
  once confirmed: without ``confirm=yes`` it answers the question to ask, which says
  what the seat's next holder will see; ``POST /table-command`` makes the moves a
  game makes from the table screen.  A control that discards progress (the game's
  ``[confirm]`` words) is confirmed the same way.

No request waits on another's work: everything that takes the session's lock or
renders runs in a worker thread, never on the event loop (a static file or a page
is served while a slow clue check runs).  Seat and table cookies last for the
evening (``COOKIE_SECONDS``) or until the seat is released.

Every request passes ``guard``'s checks first: bodies are limited before they are
read, and a state-changing request from another origin's page is refused.  Wrong
short codes are limited per client address (``guard.CodeTries``).  Every response,
refusals included, carries ``SECURITY_HEADERS``: scripts, styles, workers and
connections from this origin only, no page may frame the screens, the microphone
only for this origin's own pages, and no referrer to another site (a join link
carries its token).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol, TypeVar

import anyio
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..events import Event
from ..games.screen import screen_for
from . import controls as ctl
from .guard import BodyLimit, CodeTries, HostCheck, SameOrigin
from .hub import Hub
from .labels import labels
from .lobby_view import is_lobby, lobby_controls, lobby_table_view, seat_in_game, waiting_seat_view
from .preview import preview
from .seats import TABLE_COOKIE, Seats, cookie_name
from .talk import Talk
from .talk_routes import ANSWER_WAIT_SECONDS, TalkRoutes
from .views import seat_view, table_view


class Fingerprinted(Protocol):
    """What the table screen shows of the LAN certificate (``certificate.Certificate``)."""

    @property
    def short_fingerprint(self) -> str: ...


_T = TypeVar("_T")

#: how often a live stream looks for changes, and sends a keep-alive comment
POLL_SECONDS = 0.1
KEEPALIVE_SECONDS = 15.0
#: live-update streams one seat may have open at once (a phone, a second tab, a reload
#: whose old stream the server has not yet seen close); a newer one closes the oldest
STREAMS_PER_SEAT = 3
#: the server-sent event that tells a seat's page a newer page of the same seat took
#: its live updates: it says so and stops reconnecting (a reload takes them back)
REPLACED_EVENT = "event: replaced\ndata: {}\n\n"
MAX_FORM_BYTES = 4096
#: how long a seat's (or the table's) cookie lasts: an evening of play
COOKIE_SECONDS = 12 * 3600
#: the parts of a seat screen a live update may replace, and their templates
SEAT_REGIONS = {"prompt": "prompt.html", "view": "seat_view.html", "controls": "seat_controls.html",
                "own": "seat_own.html",
                "messages": "seat_messages.html", "said": "said.html", "talk": "talk.html"}
#: the parts of a game's table screen a live update may replace (board first)
TABLE_REGIONS = {"board": "table_board.html", "status": "table_status.html", "aside": "table_aside.html",
                 "live": "table_live.html", "said": "said.html"}
#: the server-sent event that tells every open page the screens are closing at the
#: game's end: it keeps what it shows (the result) and stops reconnecting
CLOSED_EVENT = "event: closed\ndata: {}\n\n"

#: sent with every response.  Only this origin's own scripts, styles, workers (an
#: AudioWorklet module from /static) and connections (fetch, the event stream); QR
#: codes are inline SVG; no page of another site may frame the screens (a tap
#: could be stolen); the microphone only for these pages; no referrer leaves for
#: another site.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; worker-src 'self'; media-src 'self'; object-src 'none'; "
                           "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # not "no-referrer": a form posted by a page without its script would then carry
    # ``Origin: null`` and be refused as another origin's
    "Referrer-Policy": "same-origin",
    "Permissions-Policy": "microphone=(self), camera=(), geolocation=()",
}


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("facilitator.screens", "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
    env.globals["L"] = labels()
    return env


class Screens:
    """The app and what it serves from: the hub (session) and the seats."""

    def __init__(self, hub: Hub, seats: Seats, tries: CodeTries | None = None,
                 talk: Talk | None = None) -> None:
        self.hub = hub
        self.seats = seats
        self.tries = tries or CodeTries()
        #: the phones' utterances on their way to the listen loop
        self.talk = talk or Talk()
        #: the LAN certificate (the server sets it): the table screen shows its fingerprint
        self.certificate: Fingerprinted | None = None
        #: the address phones use (the server sets it): join links and QR codes are built
        #: on it, never on the address the table screen happened to be opened at
        self.base_url: str | None = None
        self.env = _environment()
        #: the server is stopping; ``finished``: because the game is over (the pages then
        #: keep the result and stop reconnecting), not mid-game (they reconnect on resume)
        self.closing = False
        self.finished = False
        #: each seat's open live-update streams, the oldest first (touched on the event loop only)
        self._streams: dict[int, list[asyncio.Event]] = {}
        static = StaticFiles(packages=[("facilitator.screens", "static")])
        self.routes = Starlette(routes=[
            Route("/", self.home),
            Route("/table/{key}", self.open_table),
            Route("/table", self.table),
            Route("/table-live", self.table_events),
            Route("/table-command", self.table_command, methods=["POST"]),
            Route("/table-release/{seat:int}", self.release, methods=["POST"]),
            Route("/join", self.join_code, methods=["GET", "POST"]),
            Route("/join/{token}", self.join),
            Route("/seat/{seat:int}", self.seat),
            Route("/seat/{seat:int}/events", self.seat_events),
            Route("/seat/{seat:int}/command", self.seat_command, methods=["POST"]),
            Route("/seat/{seat:int}/check", self.check),
            *TalkRoutes(self.seats.holds, lambda: self.hub.listener, self.talk, self.hub.answer_tap,
                        answered=self._answer_wait,
                        page=lambda message, status, back: self.render(
                            "refused.html", status, reason=None, message=message, back=back)).routes(),
            Mount("/static", static, name="static"),
        ])
        #: the host names requests may carry (the server sets them); None: any
        self.allowed_hosts: set[str] | None = None
        self.app = SecurityHeaders(HostCheck(BodyLimit(SameOrigin(self.routes)), lambda: self.allowed_hosts))

    # -- rendering ---------------------------------------------------------------------
    def render(self, template: str, http_status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("page", self.page())
        html = self.env.get_template(template).render(**context)
        return HTMLResponse(html, status_code=http_status, headers=_NO_STORE)

    def page(self) -> str:
        """What the screens show now: the lobby or a game (a page of another kind reloads)."""
        return str(self.hub.session.referee.name)

    def _answer_wait(self, seat: int) -> Callable[[], None]:
        """Before seat ``seat``'s tap is handed on: a wait until its answer is taken."""
        heard = self.hub.heard_for(seat)
        seen = heard.number if heard is not None else 0
        return lambda: self.hub.wait_answered(seat, seen, ANSWER_WAIT_SECONDS)

    def refused(self, reason: str, http_status: int = 403) -> HTMLResponse:
        return self.render("refused.html", http_status, reason=reason)

    # -- the table ---------------------------------------------------------------------
    async def home(self, request: Request) -> Response:
        return self.render("home.html")

    def _is_table(self, request: Request) -> bool:
        return self.seats.is_table(request.cookies.get(TABLE_COOKIE))

    async def open_table(self, request: Request) -> Response:
        if not self.seats.is_table(request.path_params["key"]):
            return self.refused("refused-table", 404)
        response = RedirectResponse("/table", status_code=303)
        _set_cookie(response, TABLE_COOKIE, self.seats.table_key)
        return response

    def _table_context(self, request: Request) -> dict[str, Any]:
        base = self.base_url or str(request.base_url)
        if is_lobby(self.hub):
            context = lobby_table_view(self.hub, self.seats, base)
        else:
            context = table_view(self.hub, self.seats, base)
        context["certificate"] = self.certificate
        return context

    async def table(self, request: Request) -> Response:
        if not self._is_table(request):
            return self.refused("refused-table")

        def page() -> Response:
            with self.hub.lock:
                template = "lobby_table.html" if is_lobby(self.hub) else "table.html"
                return self.render(template, **self._table_context(request))
        return await _off(page)

    async def table_events(self, request: Request) -> Response:
        if not self._is_table(request):
            return self.refused("refused-table")
        return self._stream(request, lambda: self._table_regions(request))

    def _table_regions(self, request: Request) -> dict[str, str]:
        context = self._table_context(request)
        if is_lobby(self.hub):
            return {"live": self.env.get_template("lobby_live.html").render(**context),
                    "said": self.env.get_template("said.html").render(**context)}
        return {region: self.env.get_template(name).render(**context) for region, name in TABLE_REGIONS.items()}

    async def table_command(self, request: Request) -> Response:
        if not self._is_table(request):
            return self.refused("refused-table")
        values = await _form(request)

        def offered() -> ctl.Control | None:
            with self.hub.lock:
                found = lobby_controls(self.hub.session) if is_lobby(self.hub) \
                    else ctl.table_controls(self.hub.session)
                return ctl.find(found, values.get("control", ""))
        return await self._run(request, await _off(offered), values, "/table", lambda: frozenset())

    async def release(self, request: Request) -> Response:
        if not self._is_table(request):
            return self.refused("refused-table")
        seat = int(request.path_params["seat"])
        values = await _form(request)
        if seat not in self.seats.seats:
            return self.refused("refused-no-seat", 404)
        if not self.seats.seats[seat].held:
            return self.refused("refused-not-held", 409)
        if values.get("confirm") != "yes":
            question = await _off(lambda: self._release_question(seat))
            return self._ask(request, question, f"/table-release/{seat}", {}, "/table")
        outcome = await _off(lambda: self.hub.release(seat))
        if outcome == "seat-unknown":
            return self.refused("refused-no-seat", 404)
        if outcome == "seat-not-held":
            return self.refused("refused-not-held", 409)
        return _done(request, "/table", {"released": seat})

    def _release_question(self, seat: int) -> str:
        """Release seat N? and what its next holder will see, from the game."""
        words = labels()["words"]
        with self.hub.lock:
            ask = words["release-ask"].format(seat=seat)
            if not seat_in_game(self.hub, seat):
                return f"{ask} {words['release-nothing']}"
            session = self.hub.session
            sees = screen_for(session.referee).release_sees(session.state, seat)
        if sees is None:
            return f"{ask} {words['release-nothing']}"
        return f"{ask} {words['release-sees'].format(sees=sees or words['release-private'])}"

    def _ask(self, request: Request, question: str, action: str, values: dict[str, str],
             back: str) -> Response:
        """A consequential click is asked first: the question (JSON for the page's
        script, else a page with Yes and No)."""
        if _wants_json(request):
            return JSONResponse({"confirm": question, "accepted": None}, headers=_NO_STORE)
        return self.render("confirm.html", question=question, action=action,
                           values=sorted(values.items()), back=back)

    # -- joining -----------------------------------------------------------------------
    async def join(self, request: Request) -> Response:
        token = request.path_params["token"]
        return await _off(lambda: self._claim(token))

    async def join_code(self, request: Request) -> Response:
        if request.method == "GET":
            return self.render("join.html")
        client = request.client.host if request.client is not None else ""
        if not self.tries.allowed(client):
            return self.refused("refused-tries", 429)
        values = await _form(request)
        seat = self.seats.seat_of_code(values.get("code", ""))
        if seat is None:
            self.tries.wrong(client)
            return self.refused("refused-token", 404)
        return await _off(lambda: self._claim(seat.token))

    def _claim(self, token: str) -> Response:
        if self.seats.seat_of_token(token) is None:
            return self.refused("refused-token", 404)
        claimed = self.seats.claim(token)
        if claimed is None:
            return self.refused("refused-held", 409)
        seat, holder = claimed
        self.hub.touch()
        response = RedirectResponse(f"/seat/{seat.number}", status_code=303)
        _set_cookie(response, cookie_name(seat.number), holder)
        return response

    # -- a seat ------------------------------------------------------------------------
    def _holds(self, request: Request) -> int | None:
        number = int(request.path_params["seat"])
        return number if self.seats.holds(number, request.cookies.get(cookie_name(number))) else None

    async def seat(self, request: Request) -> Response:
        number = self._holds(request)
        if number is None:
            return self.refused("refused-seat")

        def page() -> Response:
            with self.hub.lock:
                if not seat_in_game(self.hub, number):
                    return self.render("lobby_seat.html", **waiting_seat_view(self.hub, number))
                return self.render("seat.html", **seat_view(self.hub, number))
        return await _off(page)

    async def seat_events(self, request: Request) -> Response:
        number = self._holds(request)
        if number is None:
            return self.refused("refused-seat")

        def regions() -> dict[str, str]:
            if not self.seats.holds(number, request.cookies.get(cookie_name(number))):
                raise _Released
            if not seat_in_game(self.hub, number):
                waiting = waiting_seat_view(self.hub, number)
                return {"live": self.env.get_template("lobby_seat_live.html").render(**waiting),
                        "said": self.env.get_template("said.html").render(**waiting),
                        "talk": self.env.get_template("talk.html").render(**waiting)}
            context = seat_view(self.hub, number)
            return {region: self.env.get_template(name).render(**context)
                    for region, name in SEAT_REGIONS.items()}
        return self._stream(request, regions, seat=number)

    async def seat_command(self, request: Request) -> Response:
        number = self._holds(request)
        if number is None:
            return self.refused("refused-seat")
        values = await _form(request)

        def offered() -> ctl.Control | None:
            with self.hub.lock:
                found = ctl.seat_controls(self.hub.session, number) if seat_in_game(self.hub, number) else []
                return ctl.find(found, values.get("control", ""))
        control = await _off(offered)

        def audiences() -> frozenset[Any]:
            return frozenset(self.hub.session.referee.seat_audiences(self.hub.session.state, number))
        return await self._run(request, control, values, f"/seat/{number}", audiences)

    async def check(self, request: Request) -> Response:
        """What sending a checked field would answer, without sending it (nothing logged)."""
        number = self._holds(request)
        if number is None:
            return self.refused("refused-seat")
        control_id, value = request.query_params.get("control", ""), request.query_params.get("value", "")

        def judged() -> dict[str, Any] | None:
            with self.hub.lock:
                if not seat_in_game(self.hub, number):
                    return None
                session = self.hub.session
                found = ctl.check_field(ctl.seat_controls(session, number), control_id)
                if found is None:
                    return None
                control, checked = found
                text = control.command({checked.name: value})
                if text is None:
                    return {"verdict": "refused", "text": session.phrases.say("too-long")}
                return preview(session, text, session.referee.seat_audiences(session.state, number))
        answer = await _off(judged)      # a clue check may take a while: never on the event loop
        if answer is None:
            return JSONResponse({"error": "no-check-now"}, status_code=409)
        if answer["verdict"] == "ok" and not answer["text"]:
            answer["text"] = labels()["words"]["check-ok"]
        return JSONResponse(answer, headers=_NO_STORE)

    # -- shared ------------------------------------------------------------------------
    async def _run(self, request: Request, control: ctl.Control | None, values: dict[str, str],
                   back: str, audiences: Callable[[], frozenset[Any]]) -> Response:
        """Send a control's command through the session, off the event loop (in voice play
        the listen loop applies it, and this waits for its reply)."""
        if control is not None and control.missing(values) is not None:
            # a picker left on "Choose…" (a page without its script, or a program): nothing
            # is sent for it, and nothing is taken as a default
            return JSONResponse({"error": "choose"}, status_code=422) if _wants_json(request) \
                else RedirectResponse(back, status_code=303)
        text = control.command(values) if control is not None else None
        if text is None or control is None:
            return JSONResponse({"error": "not-offered"}, status_code=409) if _wants_json(request) \
                else RedirectResponse(back, status_code=303)
        if values.get("confirm") != "yes":
            question = await _off(lambda: self._question(control.intent, control.shown(values)))
            if question:
                kept = {k: v for k, v in values.items() if k != "confirm"}
                return self._ask(request, question, str(request.url.path), kept, back)
        reply = await _off(lambda: self.hub.submit(text))
        if reply is None:        # the voice loop has it queued; the screens update when it is done
            return _done(request, back, {"command": text, "accepted": None, "public": [], "private": [],
                                         "version": self.hub.version})

        # who may read the reply is decided from the state the command produced: the
        # keeper whose leg just ended is no longer the keeper, so the next leg's route
        # (private to the new keeper) is not its to read
        # ``version``: the screens' version this reply belongs to; a page clears the reply
        # at the first live update after it (the game moved on, so it no longer says what is so)
        def answered() -> tuple[frozenset[Any], bool, int]:
            with self.hub.lock:
                return audiences(), self._refused(reply.logged), self.hub.version
        readers, refused, version = await _off(answered)
        mine = [line["text"] for line in reply.private if line["audience"] in readers]
        return _done(request, back, {"command": text, "accepted": reply.accepted and not refused,
                                     "public": reply.public, "private": mine, "version": version})

    def _question(self, intent: str, shown: dict[str, str]) -> str | None:
        """The question a click of ``intent`` is asked first (it discards progress or cannot
        be taken back), naming what was picked (``shown``), or None."""
        with self.hub.lock:
            if is_lobby(self.hub):
                return None
            return screen_for(self.hub.session.referee).confirmation(intent, shown)

    def _refused(self, logged: list[dict[str, Any]]) -> bool:
        """Did the game refuse what was sent, though it logged why (a clue refused)?"""
        if is_lobby(self.hub) or not logged:
            return False
        try:
            events = [Event.from_json(line) for line in logged]
        except (KeyError, TypeError, ValueError):
            return False
        verdict, _ = screen_for(self.hub.session.referee).judge(events)
        return verdict == "refused"

    def _stream(self, request: Request, regions: Callable[[], dict[str, str]],
                seat: int | None = None) -> Response:
        """Live updates for one page; a seat's (``seat``) count against ``STREAMS_PER_SEAT``."""
        async def events() -> AsyncIterator[str]:
            replaced = self._take_stream(seat)
            try:
                async for event in updates(replaced):
                    yield event
            finally:
                self._drop_stream(seat, replaced)

        async def updates(replaced: asyncio.Event) -> AsyncIterator[str]:
            seen, idle = -1, 0.0
            while not self.closing:
                if replaced.is_set():
                    yield REPLACED_EVENT
                    return
                self.hub.notice_question()
                self.hub.notice_seat_map()
                if self.hub.version != seen:
                    seen = self.hub.version

                    def drawn() -> tuple[str, dict[str, str]]:
                        with self.hub.lock:
                            return self.page(), regions()
                    try:
                        page, payload = await _off(drawn)
                    except _Released:
                        yield "event: released\ndata: {}\n\n"
                        return
                    yield f"data: {json.dumps({'version': seen, 'page': page, 'regions': payload})}\n\n"
                    idle = 0.0
                elif idle >= KEEPALIVE_SECONDS:
                    yield ": keep-alive\n\n"
                    idle = 0.0
                if await request.is_disconnected():
                    return
                await asyncio.sleep(POLL_SECONDS)
                idle += POLL_SECONDS
            if self.finished:
                yield CLOSED_EVENT
        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={**_NO_STORE, "X-Accel-Buffering": "no"})


    def _take_stream(self, seat: int | None) -> asyncio.Event:
        """A new stream's flag (set: a newer stream of its seat replaced it); the seat's
        oldest streams are replaced past ``STREAMS_PER_SEAT``."""
        replaced = asyncio.Event()
        if seat is not None:
            open_now = self._streams.setdefault(seat, [])
            while len(open_now) >= STREAMS_PER_SEAT:
                open_now.pop(0).set()
            open_now.append(replaced)
        return replaced

    def _drop_stream(self, seat: int | None, replaced: asyncio.Event) -> None:
        open_now = self._streams.get(seat) if seat is not None else None
        if open_now is not None and replaced in open_now:
            open_now.remove(replaced)


class _Released(Exception):
    """The seat was released while its screen was open."""


class SecurityHeaders:
    """ASGI middleware: ``SECURITY_HEADERS`` on every response (pages, static files, the
    event streams, refusals), unless the response set one itself."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *(h for h in self.headers if h[0] not in present)]}
            await send(message)
        await self.app(scope, receive, with_headers)


_NO_STORE = {"Cache-Control": "no-store"}


def _set_cookie(response: Response, name: str, value: str) -> None:
    response.set_cookie(name, value, max_age=COOKIE_SECONDS, httponly=True, samesite="strict", path="/")


async def _off(work: Callable[[], _T]) -> _T:
    """Run ``work`` (it takes the lock, or renders) in a worker thread, never on the event loop."""
    return await anyio.to_thread.run_sync(work)


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _done(request: Request, back: str, body: dict[str, Any]) -> Response:
    if _wants_json(request):
        return JSONResponse(body, headers=_NO_STORE)
    return RedirectResponse(back, status_code=303)


async def _form(request: Request) -> dict[str, str]:
    """The posted fields (url-encoded), bounded in size; anything else is empty."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return {}
    from urllib.parse import parse_qsl

    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        return {}
