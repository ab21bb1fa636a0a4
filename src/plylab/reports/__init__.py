"""Reports a person would rather look at: a static HTML site with replays, ratings, plots, LaTeX.

write_site(store_path, run, out_dir)   # `plylab report --html DIR`
write_latex(store_path, run, out_dir)  # `plylab report --latex DIR`
"""

from .latex import write_latex
from .site import write_site

__all__ = ["write_latex", "write_site"]
