"""`keras.utils.Progbar`: the progress bar `fit`, `evaluate` and `predict` print.

The text follows Keras 3 (keras/src/utils/progbar.py): with verbose=1 a bar redrawn in place
("\\r", bold step count, green/white bar, time, ms/step, ' - name: value' averages); with
verbose=2 one line when the bar finishes ("32/32 - 0s - 2ms/step - loss: 0.3000").
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Iterable, Optional

import numpy as np

from tapeflow.keras.utils.io_utils import print_msg




def _format_time(time_per_unit: float, unit_name: str) -> str:
    if time_per_unit >= 1 or time_per_unit == 0:
        return f" {time_per_unit:.0f}s/{unit_name}"
    if time_per_unit >= 1e-3:
        return f" {time_per_unit * 1000.0:.0f}ms/{unit_name}"
    return f" {time_per_unit * 1000000.0:.0f}us/{unit_name}"


def _format_value(avg: float, threshold_abs: bool) -> str:
    big = abs(avg) > 1e-3 if threshold_abs else avg > 1e-3
    return f" {avg:.4f}" if big else f" {avg:.4e}"


class Progbar:
    """A progress bar over `target` steps.

    Args:
      target: the total number of steps, or None if unknown.
      width: the bar's width in characters.
      verbose: 1 (bar redrawn in place), 2 (one line at the end), 0 (silent).
      interval: the minimum seconds between redraws.
      stateful_metrics: names shown as given (others are averaged over steps).
      stateless_metrics: names averaged over steps (others are shown as given).
      unit_name: the unit in the time per unit ('step').
    """

    def __init__(self, target: Optional[int], width: int = 20, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics: Optional[Iterable[str]] = None,
                 stateless_metrics: Optional[Iterable[str]] = None,
                 unit_name: str = "step") -> None:
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Only one of `stateful_metrics` or `stateless_metrics` can be "
                             "provided.")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        if stateless_metrics is not None:
            self.stateful_metrics, self.stateless_metrics = None, set(stateless_metrics)
        else:
            self.stateful_metrics = set(stateful_metrics or ())
            self.stateless_metrics = None
        # Keras redraws in place whenever it runs on a POSIX system or a terminal.
        self._dynamic_display = (sys.stdout.isatty() if hasattr(sys.stdout, "isatty")
                                 else False) or os.name == "posix"
        self._seen_so_far = 0
        self._values: dict = {}
        self._values_order: list = []
        self._start = time.time()
        self._last_update = 0.0
        self._time_after_first_step: Optional[float] = None
        self._prev_total_width = 0

    def _record(self, values: Iterable, current: int, finalize: bool) -> None:
        for k, v in values:
            if k not in self._values_order:
                self._values_order.append(k)
            if self.stateful_metrics is not None:
                stateless = k not in self.stateful_metrics
            else:
                stateless = k in self.stateless_metrics
            if stateless and not finalize:
                base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * base, base]
                else:
                    self._values[k][0] += v * base
                    self._values[k][1] += base
            else:
                self._values[k] = [v, 1]

    def _averages(self, threshold_abs: bool) -> str:
        info = ""
        for k in self._values_order:
            info += f" - {k}:"
            total, count = self._values[k]
            if not isinstance(total, float):
                total = float(np.mean(total))
            info += _format_value(total / max(1, count), threshold_abs)
        return info

    def update(self, current: int, values: Optional[Iterable] = None,
               finalize: Optional[bool] = None) -> None:
        """Shows progress at step `current`, with `(name, value)` pairs for this step."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        self._record(values or [], current, finalize)
        self._seen_so_far = current
        now = time.time()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize and self.target:
            digits = int(math.log10(self.target)) + 1
            info = f"%{digits}d/%d" % (current, self.target)
            info += f" - {now - self._start:.0f}s -{_format_time(time_per_unit, self.unit_name)}"
            print_msg(info + self._averages(threshold_abs=False) + "\n", line_break=False)
        self._last_update = now

    def _draw(self, current: int, now: float, time_per_unit: float, finalize: bool) -> None:
        message = ("\b" * self._prev_total_width + "\r") if self._dynamic_display else "\n"
        special = 0
        if self.target:
            digits = int(math.log10(self.target)) + 1
            bar = f"\x1b[1m{f'%{digits}d/%d' % (current, self.target)}\x1b[0m "
            special += 8
            prog_width = int(self.width * float(current) / self.target)
            if prog_width > 0:
                bar += f"\x1b[32m{'━' * prog_width}\x1b[0m"
                special += 9
            bar += f"\x1b[37m{'━' * (self.width - prog_width)}\x1b[0m"
            special += 9
        else:
            bar = "%7d/Unknown" % current
        if self.target and not finalize:
            eta = time_per_unit * (self.target - current)
            if eta > 3600:
                eta_text = "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
            elif eta > 60:
                eta_text = "%d:%02d" % (eta // 60, eta % 60)
            else:
                eta_text = "%ds" % eta
            info = f" \x1b[1m{eta_text}\x1b[0m"
        else:
            info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
        special += 8
        info += _format_time(time_per_unit, self.unit_name) + self._averages(threshold_abs=True)
        total_width = len(bar) + len(info) - special
        message += bar + info
        if self._prev_total_width > total_width:
            message += " " * (self._prev_total_width - total_width)
        if finalize:
            message += "\n"
        print_msg(message, line_break=False)
        self._prev_total_width = total_width

    def add(self, n: int, values: Optional[Iterable] = None) -> None:
        """Advances the bar by `n` steps."""
        self.update(self._seen_so_far + n, values)

    def _estimate_step_duration(self, current: int, now: float) -> float:
        # The first step (tracing, warm-up) is left out of the estimate once there are more.
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_unit


__all__ = ["Progbar", "print_msg"]
