"""From the reader's budget to the hybrid's sizes: the rules tried, and the one chosen on dev.

A RAG application knows how much text it sends its model per question (its *budget*, in
characters). A rule here turns that budget into the hybrid's ``chunk_size`` and ``chunk_overlap``,
so that a small budget gets small chunks and a large one larger (and perhaps overlapping) ones:

    ``chunk_size = budget / divisor`` (rounded, clamped to ``[MIN_CHUNK_SIZE, MAX_CHUNK_SIZE]``),
    ``chunk_overlap = overlap_share * chunk_size`` (rounded down).

With ``divisor=2`` the reader receives about two chunks' worth of text; an overlap repeats the last
whole sentences of the prose chunk before (`chunklab.strategies.hybrid.HybridChunker`), and the
hits are then sent de-duplicated (`chunklab.evaluation.expand.new_text_only`), so the budget never
pays for a repeated character. Packing stays the hybrid's own (sentences packed evenly).

**The family tried** (fixed before anything was measured; notebook 15 measures every member on the
dev questions, and `chunklab.evaluation.criterion` chooses among them by the rule of
``docs/criterion.md``): `FAMILY`, the six rules with ``divisor`` in (1, 2, 4) and ``overlap_share``
in (0, 0.15), and today's default, `FIXED_DEFAULT` (``chunk_size=600``, no overlap, whatever the
budget), which is what is kept when no rule qualifies. The divisors were chosen so that the three
budgets of the course (500, 1,000, 2,000) give few distinct chunkings (125 to 2,000 characters,
five sizes), which keeps the dense measurement short.

`CHOSEN_RULE` is the member the criterion chose; `HybridChunker(budget=...)` uses it
(`recommended_sizes`). On the dev questions the criterion kept the default, so today a budget
leaves the hybrid's sizes as they are; a rule chosen on a later dev set would change only
`CHOSEN_RULE`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..text.length import DEFAULT_CHUNK_SIZE

__all__ = [
    "CHOSEN_RULE",
    "FAMILY",
    "FIXED_DEFAULT",
    "MAX_CHUNK_SIZE",
    "MIN_CHUNK_SIZE",
    "BudgetRule",
    "recommended_sizes",
    "sized_for_budget",
]

#: The smallest chunk size a rule gives: above the hybrid's default `min_chunk_size` (100), which must stay smaller.
MIN_CHUNK_SIZE = 120
#: The largest chunk size a rule gives.
MAX_CHUNK_SIZE = 4000


def sized_for_budget(budget: int, divisor: int, overlap_share: float) -> dict[str, int]:
    """``{"chunk_size": ..., "chunk_overlap": ...}`` for a reader that receives `budget` characters
    per question: ``budget / divisor`` rounded and clamped to ``[MIN_CHUNK_SIZE, MAX_CHUNK_SIZE]``,
    and ``floor(overlap_share * chunk_size)`` of overlap (always smaller than the chunk size)."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive integer (characters per question), got {budget!r}")
    if isinstance(divisor, bool) or not isinstance(divisor, int) or divisor < 1:
        raise ValueError(f"divisor must be an integer >= 1, got {divisor!r}")
    if not 0 <= overlap_share < 1:
        raise ValueError(f"overlap_share must be in [0, 1), got {overlap_share!r}")
    size = min(MAX_CHUNK_SIZE, max(MIN_CHUNK_SIZE, round(budget / divisor)))
    return {"chunk_size": size, "chunk_overlap": math.floor(overlap_share * size)}


@dataclass(frozen=True)
class BudgetRule:
    """One member of the family: ``divisor`` and ``overlap_share`` for `sized_for_budget`, or, with
    ``divisor=None``, today's fixed default (``chunk_size=600``, no overlap, whatever the budget)."""

    divisor: int | None
    overlap_share: float = 0.0

    @property
    def label(self) -> str:
        """How tables name the rule: ``"budget/2, overlap 15%"`` or ``"fixed 600 (default)"``."""
        if self.divisor is None:
            return f"fixed {DEFAULT_CHUNK_SIZE} (default)"
        return f"budget/{self.divisor}, overlap {self.overlap_share:.0%}"

    def __call__(self, budget: int) -> dict[str, int]:
        """The hybrid's ``chunk_size`` and ``chunk_overlap`` for `budget`."""
        if self.divisor is None:
            if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
                raise ValueError(f"budget must be a positive integer (characters per question), got {budget!r}")
            return {"chunk_size": DEFAULT_CHUNK_SIZE, "chunk_overlap": 0}
        return sized_for_budget(budget, self.divisor, self.overlap_share)


#: Today's default: one size whatever the budget. Kept when no rule qualifies.
FIXED_DEFAULT = BudgetRule(None)
#: The rules tried against `FIXED_DEFAULT`, fixed before measuring.
FAMILY: tuple[BudgetRule, ...] = tuple(BudgetRule(d, share) for d in (1, 2, 4) for share in (0.0, 0.15))
#: The member `chunklab.evaluation.criterion` chose on the dev questions (notebook 15, which asserts
#: it): the default, since no rule was measurably better than it in any setting after Holm's correction.
CHOSEN_RULE: BudgetRule = FIXED_DEFAULT


def recommended_sizes(budget: int) -> dict[str, int]:
    """The hybrid's ``chunk_size`` and ``chunk_overlap`` for `budget` by `CHOSEN_RULE`."""
    return CHOSEN_RULE(budget)
