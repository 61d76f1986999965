"""The 24 hidden-route cards, loaded from ``content/compass-code/routes.toml``."""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator, model_validator

from ...content import Strict, load
from .rules import ALL_ROUTES, route_problem

ROUTES_FILE = "compass-code/routes.toml"


class RouteCard(Strict):
    number: int
    route: str

    @field_validator("route")
    @classmethod
    def _legal(cls, value: str) -> str:
        if route_problem(value) or value != value.upper():
            raise ValueError(f"route {value!r} must use N, E, S and W once each, upper case")
        return value


class RouteDeck(Strict):
    routes: list[RouteCard]

    @model_validator(mode="after")
    def _complete(self) -> RouteDeck:
        numbers = [c.number for c in self.routes]
        if sorted(numbers) != list(range(1, 25)):
            raise ValueError(f"card numbers must be 1 to 24 once each, got {sorted(numbers)}")
        routes = [c.route for c in self.routes]
        if sorted(routes) != sorted(ALL_ROUTES):
            missing = sorted(set(ALL_ROUTES) - set(routes))
            raise ValueError(f"the deck must hold all 24 routes once each; missing {missing}")
        return self

    def number_of(self, route: str) -> int:
        return next(c.number for c in self.routes if c.route == route)

    def route_of(self, number: int) -> str | None:
        return next((c.route for c in self.routes if c.number == number), None)

    @property
    def all(self) -> list[str]:
        return [c.route for c in sorted(self.routes, key=lambda c: c.number)]


def load_deck(directory: Path | None = None) -> RouteDeck:
    return load(ROUTES_FILE, RouteDeck, directory)


def check(directory: Path | None = None) -> list[str]:
    deck = load_deck(directory)
    return [f"content/{ROUTES_FILE}: {len(deck.routes)} route cards, all 24 routes once each"]
