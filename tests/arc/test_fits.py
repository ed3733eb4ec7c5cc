"""Fit records of the search (`gpubatch.arc.fits`): the program that represents a fit reached by several."""
from types import SimpleNamespace

from gpubatch.arc.fits import FitBook


def _book() -> FitBook:
    book = FitBook()
    book.ts = [SimpleNamespace(fits=[])]
    book.rule_by_out, book.order = {}, 0
    return book


def test_rule_fit_keeps_the_canonical_program_whatever_order_it_meets_them():
    """Two programs whose rule fits predict the same outputs: one record with two votes, represented by the same
    program and rule whichever was met first (the order depends on how tasks and states were batched)."""
    outs = [[[1, 2], [3, 4]]]
    programs = [((2, 40, 17), "lines_major"), ((2, 3, 9), "nbhd_major"), ((2, 5, 9), "ring_major")]
    seen = []
    for order in (programs, programs[::-1], programs[1:] + programs[:1]):
        book = _book()
        for path, rule in order:
            book._rule_record(2, 0, 0, rule, 3, outs, None, [path])
        (rec,) = book.ts[0].fits
        assert rec.votes == 3
        seen.append((rec.path, rec.rule))
    assert seen == [((2, 3, 9), "nbhd_major")] * 3


def test_rule_fits_of_other_outputs_stay_apart():
    book = _book()
    book._rule_record(1, 0, 0, "nbhd", 0, [[[1]]], None, [(1, 0, 4)])
    book._rule_record(1, 0, 0, "nbhd", 0, [[[2]]], None, [(1, 0, 3)])
    assert [(r.path, r.votes) for r in book.ts[0].fits] == [((1, 0, 4), 1), ((1, 0, 3), 1)]


def test_rules_of_one_state_keep_the_order_they_are_fitted_in():
    """One state whose rules agree: the rule fitted first on a state (`learned.KINDS`) represents them."""
    for order in (("extreme", "size"), ("size", "extreme")):
        book = _book()
        for rule in order:
            book._rule_record(0, 0, 0, rule, 0, [[[5]]], None, [(0, 0, -1)])
        assert [(r.rule, r.votes) for r in book.ts[0].fits] == [("size", 2)]
