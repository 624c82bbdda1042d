"""Glicko-2, as Mark Glickman's "Example of the Glicko-2 system" (Boston University,
2022) defines it, step by step: one rating period at a time, every player updated from
the ratings at the period's start.

No well-kept rating library on PyPI does this: ``glicko2`` (last release January
2024, untyped, mutable players) computes step 5's function with the rating where the
paper has the deviation (``self.__rating**2`` for phi squared), so its volatilities
are wrong; ``openskill`` has no Glicko-2. This module is the paper's algorithm, small
and pure, and its worked example is a test (``tests/replay/swiss/test_glicko2.py``).
Ratings are floats (this is not the engine: nothing here decides a game)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["SCALE", "TAU", "Glicko", "update"]

SCALE: Final = 173.7178
TAU: Final = 0.5
EPSILON: Final = 0.000001


@dataclass(frozen=True, slots=True)
class Glicko:
    """A rating on the Glicko scale: rating, deviation (RD) and volatility."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Glicko, games: Sequence[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """``player`` after a rating period of ``games``: (opponent at the period's start,
    score 1 won, 0.5 drawn, 0 lost). No game: only the deviation grows (step 6)."""
    mu = (player.rating - 1500) / SCALE  # step 2
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not games:
        return Glicko(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    opponents = [((o.rating - 1500) / SCALE, o.deviation / SCALE, score) for o, score in games]
    v_inverse = 0.0  # step 3
    total = 0.0  # step 4
    for mu_j, phi_j, score in opponents:
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inverse += g * g * e * (1 - e)
        total += g * (score - e)
    v = 1 / v_inverse
    delta = v * total
    sigma = _volatility(phi, sigma, delta, v, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma * sigma)  # step 6
    phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)  # step 7
    mu = mu + phi * phi * total
    return Glicko(SCALE * mu + 1500, SCALE * phi, sigma)  # step 8


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)
