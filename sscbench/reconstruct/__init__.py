"""Event reconstruction: triggered, T_F, T_E, T_S, T_U, A, Z_S and Y_end from ledgers."""

from sscbench.reconstruct.label import arrival_class, label_dir, label_run
from sscbench.reconstruct.labels import EventTime, RunLabels

__all__ = ["EventTime", "RunLabels", "arrival_class", "label_dir", "label_run"]
