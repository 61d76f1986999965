"""The talk control's routes: a seat's phone streams an utterance to the listen loop.

Every route needs the seat's cookie (403 otherwise) and, being a POST, passes the
guard's checks first (same origin, body limit).  Each answer is JSON; a refusal is
``{"error": KEY, "message": words}`` with nothing applied (see ``talk.Talk``).  The
listener is called off the event loop: ``phone_press`` on a press, ``phone_utterance``
on a release; both return at once.  What the loop heard comes back through
``Hub.phone_heard`` and shows in the seat page's talk region.  While the referee asks
this seat about what its phone said, the region shows Yes and No; a tap posts
``/seat/N/answer`` and is answered as the phone's spoken yes or no would be.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from .labels import labels
from .seats import cookie_name
from .talk import (
    CONTENT_TYPE,
    MAX_CHUNK_BYTES,
    MAX_SECONDS,
    SAMPLE_RATE,
    PhoneListener,
    Talk,
    TalkRefused,
)

_NO_STORE = {"Cache-Control": "no-store"}
#: an answer's form is "answer=yes" or "answer=no"
MAX_ANSWER_BYTES = 64


#: how long a page without its script waits for its tapped answer to be taken (the
#: referee speaks its answer first), before it is shown the seat's page anyway
ANSWER_WAIT_SECONDS = 10.0


def refusal_words(key: str, **fields: str) -> str:
    """The words a phone shows for a refused talk request."""
    words = labels()["words"]
    message = words.get(f"talk-refused-{key}", words["talk-refused-other"])
    return str(message.format(seconds=f"{MAX_SECONDS:g}", **fields))


def refusal(key: str, status: int, **fields: str) -> JSONResponse:
    """A refused talk request: its reason and the words a phone shows for it."""
    return JSONResponse({"error": key, "message": refusal_words(key, **fields)},
                        status_code=status, headers=_NO_STORE)


class TalkRoutes:
    """The talk routes of one app, given what they need of it: whether a device holds a seat
    (``holds(seat, cookie)``) and the listener phones talk to now (None: nobody listens)."""

    def __init__(self, holds: Callable[[int, str | None], bool],
                 listener: Callable[[], PhoneListener | None], talk: Talk,
                 answer_tap: Callable[[int, bool], None],
                 answered: Callable[[int], Callable[[], None]] | None = None,
                 page: Callable[[str, int, str], Response] | None = None) -> None:
        self.holds = holds
        self.listener = listener
        self.talk = talk
        #: ``answer_tap(seat, yes)``: the seat's tapped answer to its open question
        #: (``TalkRefused`` when it answers nothing)
        self.answer_tap = answer_tap
        #: ``answered(seat)`` before a tap: a wait until that tap's answer is taken (for a
        #: page without its script, shown the seat's page after it)
        self.answered = answered
        #: ``page(message, status, back)``: a refusal as a page, for a page without its script
        self.page = page

    def routes(self) -> list[Route]:
        return [
            Route("/seat/{seat:int}/talk", self.start, methods=["POST"]),
            Route("/seat/{seat:int}/talk/{utterance}/end", self.end, methods=["POST"]),
            Route("/seat/{seat:int}/talk/{utterance}/{index}", self.chunk, methods=["POST"]),
            Route("/seat/{seat:int}/answer", self.answer, methods=["POST"]),
        ]

    def _seat(self, request: Request) -> int | None:
        """The seat this device holds (its cookie), or None."""
        number = int(request.path_params["seat"])
        held = self.holds(number, request.cookies.get(cookie_name(number)))
        return number if held else None

    async def start(self, request: Request) -> Response:
        """A press: a new utterance id; the referee stops speaking."""
        seat = self._seat(request)
        if seat is None:
            return refusal("seat", 403)
        await request.body()                 # a press carries nothing; whatever came is dropped
        listener = self.listener()
        if listener is None:
            return refusal("not-listening", 409)
        try:
            utterance = self.talk.start(seat)
        except TalkRefused as refused:
            return refusal(refused.key, refused.status)
        await anyio.to_thread.run_sync(listener.phone_press, seat)
        return JSONResponse({"utterance": utterance, "sample_rate": SAMPLE_RATE,
                             "content_type": CONTENT_TYPE, "max_chunk_bytes": MAX_CHUNK_BYTES,
                             "max_seconds": MAX_SECONDS}, headers=_NO_STORE)

    async def chunk(self, request: Request) -> Response:
        seat = self._seat(request)
        if seat is None:
            return refusal("seat", 403)
        body = await request.body()
        try:
            seconds = self.talk.chunk(seat, request.path_params["utterance"], request.path_params["index"],
                                      request.headers.get("content-type"), body)
        except TalkRefused as refused:
            return refusal(refused.key, refused.status)
        return JSONResponse({"seconds": round(seconds, 3)}, headers=_NO_STORE)

    async def answer(self, request: Request) -> Response:
        """Yes or No tapped on the question the referee asks this seat about what its
        phone said (``answer=yes`` or ``answer=no``, url-encoded): answered as if the phone
        had said it.  A page without scripts posts the form and is sent back to the seat."""
        seat = self._seat(request)
        if seat is None:
            return refusal("seat", 403)
        body = await request.body()
        try:
            fields = dict(parse_qsl(body.decode("utf-8"))) if len(body) <= MAX_ANSWER_BYTES else {}
        except UnicodeDecodeError:
            fields = {}
        scripted = "application/json" in request.headers.get("accept", "")
        given = fields.get("answer", "")
        if given not in ("yes", "no"):
            return self._refused(scripted, seat, TalkRefused("bad-answer", 400))
        wait = self.answered(seat) if self.answered is not None and not scripted else None
        try:
            await anyio.to_thread.run_sync(self.answer_tap, seat, given == "yes")
        except TalkRefused as refused:
            return self._refused(scripted, seat, refused)
        if not scripted:
            # a page without its script shows the seat's page once: after the answer was taken
            if wait is not None:
                await anyio.to_thread.run_sync(wait)
            return RedirectResponse(f"/seat/{seat}", status_code=303)
        return JSONResponse({"sent": True, "message": labels()["words"]["talk-answer-sent"]}, headers=_NO_STORE)

    def _refused(self, scripted: bool, seat: int, refused: TalkRefused) -> Response:
        """A refused answer: JSON for the page's script, a page saying why (with the way
        back to the seat) for a page without it."""
        if scripted or self.page is None:
            return refusal(refused.key, refused.status, **refused.fields)
        return self.page(refusal_words(refused.key, **refused.fields), refused.status, f"/seat/{seat}")

    async def end(self, request: Request) -> Response:
        """The release: the utterance goes to the listener, whole."""
        seat = self._seat(request)
        if seat is None:
            return refusal("seat", 403)
        await request.body()
        listener = self.listener()
        utterance = request.path_params["utterance"]
        if listener is None:
            self.talk.drop(seat)
            return refusal("not-listening", 409)
        try:
            finished = await anyio.to_thread.run_sync(self.talk.end, seat, utterance,
                                                      request.query_params.get("chunks"))
        except TalkRefused as refused:
            return refusal(refused.key, refused.status)
        await anyio.to_thread.run_sync(listener.phone_utterance, seat, finished.pcm)
        answer: dict[str, Any] = {"sent": True, "seconds": round(finished.seconds, 3),
                                  "message": labels()["words"]["talk-sending"]}
        return JSONResponse(answer, headers=_NO_STORE)
