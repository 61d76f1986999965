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


def refusal(key: str, status: int) -> JSONResponse:
    """A refused talk request: its reason and the words a phone shows for it."""
    words = labels()["words"]
    message = words.get(f"talk-refused-{key}", words["talk-refused-other"])
    return JSONResponse({"error": key, "message": message.format(seconds=f"{MAX_SECONDS:g}")},
                        status_code=status, headers=_NO_STORE)


class TalkRoutes:
    """The talk routes of one app, given what they need of it: whether a device holds a seat
    (``holds(seat, cookie)``) and the listener phones talk to now (None: nobody listens)."""

    def __init__(self, holds: Callable[[int, str | None], bool],
                 listener: Callable[[], PhoneListener | None], talk: Talk,
                 answer_tap: Callable[[int, bool], bool]) -> None:
        self.holds = holds
        self.listener = listener
        self.talk = talk
        #: ``answer_tap(seat, yes)``: the seat's tapped answer to its open question (False: none open)
        self.answer_tap = answer_tap

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
        given = fields.get("answer", "")
        if given not in ("yes", "no"):
            return refusal("bad-answer", 400)
        taken = await anyio.to_thread.run_sync(self.answer_tap, seat, given == "yes")
        if not taken:
            return refusal("no-question", 409)
        if "application/json" not in request.headers.get("accept", ""):
            return RedirectResponse(f"/seat/{seat}", status_code=303)
        return JSONResponse({"sent": True, "message": labels()["words"]["talk-answer-sent"]}, headers=_NO_STORE)

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
