"""How a scenario's requests arrive: its arrival pattern, a dimension of the case grid
beside the parameters and the settings.

* ``back_to_back``: blocks of calls, one right after the other, timed together (the
  throughput of a saturated loop). The default: a case that names no pattern is this one,
  and so is every result stored without an ``arrival`` field.
* ``idle``: each request after ``gap_s`` seconds with nothing running, one at a time
  (MLPerf's SingleStream, with a pause between queries): a server that answers one
  request now and then. Closed loop: the gap starts when the last request completes.
* ``poisson``: requests at random times, a Poisson process at ``rate`` times the
  variant's back-to-back throughput (MLPerf's Server scenario). Open loop: the arrival
  times are drawn in advance (:func:`tfperf.measure.supervise.rounds.schedule`); a request that
  arrives while the one before still runs waits, and its latency counts the wait.

For ``idle`` and ``poisson`` each call is one request, timed alone from its scheduled
arrival to its completion, and every request's latency is kept; a block of a round is
``requests`` requests. Its own module in the foundation: the topic loader, the case grid,
the parent and the worker all read it, and the worker imports nothing beyond the standard
library, numpy and TensorFlow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Literal, TypedDict


class Pattern(str, Enum):
    BACK_TO_BACK = "back_to_back"
    IDLE = "idle"
    POISSON = "poisson"


# Requests per block of a round unless the topic says how many: an idle block of 20
# requests after 10 ms lasts about 0.2 s plus the calls; a Poisson block is longer, so that
# the queue of its higher rates has time to build after the block starts empty.
REQUESTS: dict[Pattern, int] = {Pattern.IDLE: 20, Pattern.POISSON: 50}
MAX_GAP_S = 1.0                  # an idle gap longer than this only makes the run longer
MAX_REQUESTS = 10_000            # per block


class _ArrivalRecordRequired(TypedDict):
    pattern: Literal["idle", "poisson"]
    id: str                      # Arrival.id: "idle-10ms", "poisson-0.7"
    requests: int                # per block


class ArrivalRecord(_ArrivalRecordRequired, total=False):
    """A per-request pattern as a result stores it (and as the parent sends it to the
    worker, without the two measured fields)."""

    gap_s: float                 # idle: seconds between a completion and the next request
    rate: float                  # poisson: the arrival rate as a fraction of back-to-back throughput
    service_s: float             # the variant's back-to-back time per call, measured when it was prepared
    rate_per_s: float            # poisson: the rate drawn, requests per second (rate / service_s)


@dataclass(frozen=True)
class Arrival:
    """One arrival pattern as a topic declares it (checked by ``tfperf.cases.topic``)."""

    pattern: Pattern = Pattern.BACK_TO_BACK
    gap_s: float = 0.0           # idle
    rate: float = 0.0            # poisson: above 0, below 1
    requests: int = 0            # per block; 0: REQUESTS of the pattern (back to back: the calibrated loop)

    @property
    def id(self) -> str:
        """The pattern's name in case ids and scenario ids: "back_to_back", "idle-10ms",
        "poisson-0.7" (a valid name of the store: letters, digits and _ . + -)."""
        if self.pattern is Pattern.IDLE:
            return f"idle-{self.gap_s * 1000:g}ms"
        if self.pattern is Pattern.POISSON:
            return f"poisson-{self.rate:g}"
        return str(self.pattern.value)

    @property
    def per_request(self) -> bool:
        """Each call is a request timed alone (idle, poisson), not one of a block timed together."""
        return self.pattern is not Pattern.BACK_TO_BACK

    @property
    def block(self) -> int:
        """Requests per block of a round (per-request patterns)."""
        return self.requests or REQUESTS.get(self.pattern, 0)

    def record(self) -> ArrivalRecord:
        """The declared part of the stored record (what the parent sends the worker)."""
        if not self.per_request:
            raise ValueError("back to back is stored as no arrival field")
        if self.pattern is Pattern.IDLE:
            return {"pattern": "idle", "id": self.id, "requests": self.block, "gap_s": self.gap_s}
        return {"pattern": "poisson", "id": self.id, "requests": self.block, "rate": self.rate}

    @classmethod
    def of(cls, record: ArrivalRecord | None) -> Arrival:
        """The pattern of a stored record; none (a result of before patterns, or a back-to-back
        one) is back to back."""
        if record is None:
            return BACK_TO_BACK
        return cls(Pattern(record["pattern"]), float(record.get("gap_s", 0.0)), float(record.get("rate", 0.0)),
                   int(record["requests"]))


BACK_TO_BACK = Arrival()


def suffix(arrival_id: str) -> str:
    """What a case id or a scenario id adds for a pattern: "" for back to back (ids stay
    as they were before patterns), else "@<id>"."""
    return "" if arrival_id == Pattern.BACK_TO_BACK.value else f"@{arrival_id}"


_ID = re.compile(r"^(?:(?P<b2b>back_to_back)|idle-(?P<ms>\d+(?:\.\d+)?)ms|poisson-(?P<rate>0?\.\d+))$")


def parse_id(text: str) -> Arrival | None:
    """The pattern an id names ("back_to_back", "idle-10ms", "poisson-0.7"), as
    :attr:`Arrival.id` spells it; None for any other text or a value out of range (a gap
    above :data:`MAX_GAP_S`, a rate not strictly between 0 and 1)."""
    m = _ID.match(text)
    if m is None:
        return None
    if m.group("b2b"):
        return BACK_TO_BACK
    if m.group("ms") is not None:
        gap = float(m.group("ms")) / 1000
        return Arrival(Pattern.IDLE, gap_s=gap) if gap <= MAX_GAP_S else None
    rate = float(m.group("rate"))
    return Arrival(Pattern.POISSON, rate=rate) if 0.0 < rate < 1.0 else None


def words(arrival_id: str) -> str:
    """A pattern in reader words: "back to back", "after 10 ms idle", "at random at 70% of
    full load" (the id itself for one that does not parse)."""
    a = parse_id(arrival_id)
    if a is None:
        return arrival_id
    if a.pattern is Pattern.IDLE:
        return f"after {a.gap_s * 1000:g} ms idle"
    if a.pattern is Pattern.POISSON:
        return f"at random at {a.rate * 100:g}% of full load"
    return "back to back"
