import pytest

from plylab.analysis.stats import cluster_bootstrap, student_t, welch_one_sided, wilson


def test_wilson_matches_the_papers_interval():
    # Table 2: 1.00 [.976, 1.00] is 100% of ~155 moves; check a textbook value instead of a guess.
    est = wilson(88, 100)
    assert est.rate == 0.88
    assert est.low == pytest.approx(0.8020, abs=1e-3) and est.high == pytest.approx(0.9306, abs=1e-3)
    assert wilson(0, 0).rate is None


def test_student_t_interval():
    est = student_t([1.0, 2.0, 3.0, 4.0])
    assert est.rate == 2.5
    assert est.low == pytest.approx(0.4457, abs=1e-3) and est.high == pytest.approx(4.5543, abs=1e-3)


def test_cluster_bootstrap_is_wider_than_wilson_when_games_differ():
    clusters = [(5, 5)] * 10 + [(0, 5)] * 10  # all-or-nothing games: strong clustering
    boot = cluster_bootstrap(clusters)
    w = wilson(50, 100)
    assert boot.rate == 0.5
    assert boot.high - boot.low > w.high - w.low


def test_welch_one_sided():
    assert welch_one_sided([0.9, 0.88, 0.91, 0.9], [0.8, 0.79, 0.82, 0.81]) < 0.01
    assert welch_one_sided([0.8, 0.79, 0.82, 0.81], [0.9, 0.88, 0.91, 0.9]) > 0.99


def test_wilson_and_t_quantiles_match_scipy_without_importing_it():
    """The intervals are computed without scipy (it cost a report a second of start-up); scipy's own
    functions agree (checked here, where importing it is free)."""
    from scipy import stats
    from scipy.special import stdtrit

    from plylab.analysis.stats import t_quantile

    for n in (1, 2, 7, 30, 155, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            est = wilson(k, n)
            assert (est.low, est.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    for df in (1, 2, 3, 5, 10, 29, 100, 999, 2999, 3001, 10_000, 10**6, 10**9):
        for p in (0.6, 0.9, 0.975, 0.995, 0.9995):
            assert t_quantile(p, df) == pytest.approx(float(stdtrit(df, p)), rel=1e-11)


@pytest.mark.slow
def test_cluster_bootstrap_of_a_small_store_needs_no_numpy_and_agrees_with_the_numpy_path(monkeypatch):
    """Up to SMALL games the resampling is plain Python (numpy's import was most of a small report's
    start-up); both generators estimate the same interval, and each is the same on every call."""
    import subprocess
    import sys

    import numpy as np

    from plylab.analysis import stats

    code = (
        "import sys; from plylab.analysis.stats import cluster_bootstrap as b; "
        "e = b([(5, 5)] * 30 + [(1, 5)] * 30); assert e.low < e.rate < e.high; "
        "assert 'numpy' not in sys.modules, 'numpy imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    clusters = [(k % 6, 5) for k in range(120)]
    small = cluster_bootstrap(clusters, resamples=4000)
    assert small == cluster_bootstrap(clusters, resamples=4000)  # seeded
    monkeypatch.setattr(stats, "SMALL", 0)
    big = cluster_bootstrap(clusters, resamples=4000)
    assert small.rate == big.rate
    assert small.low == pytest.approx(big.low, abs=0.01) and small.high == pytest.approx(big.high, abs=0.01)
    values = [0.3, 0.1, 0.7, 0.2, 0.9]
    assert stats._quantile(sorted(values), 0.025) == pytest.approx(float(np.quantile(values, 0.025)))
