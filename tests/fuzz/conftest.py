"""Property-based fuzz tests (Hypothesis): any input either works or gets the documented error, and a
refused input changes nothing.

Runs are reproducible (``derandomize``) and keep no example database; ``HYPOTHESIS_PROFILE=deep`` runs
many more examples for a long local hunt.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, database=None, derandomize=True, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
settings.register_profile("hiddenhand", max_examples=60, **_COMMON)
settings.register_profile("deep", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "hiddenhand"))

