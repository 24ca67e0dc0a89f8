"""Kernel Tuner-style parameter lists as a glimpse Space, and configurations back to their values.

glimpse's knobs take int, float and str values. A parameter whose values are all numbers (bools
excepted) becomes an ordered knob; any other becomes a categorical knob of the values' str(), and
the original values are given back when a configuration is decoded (True, None, tuples, …).
"""

import logging

from . import _core

_log = logging.getLogger("glimpse")


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plain_number(value):
    # numpy scalars → Python numbers (glimpse's knobs take Python's).
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()
    return value


class ParameterEncoding:
    """The mapping between a {name: [values]} dict and a glimpse Space over it."""

    def __init__(self, tune_params, restrictions=()):
        self.names = list(tune_params.keys())
        self._decode = {}
        knobs = {}
        for name, values in tune_params.items():
            values = [_plain_number(v) for v in values]
            if all(_is_number(v) for v in values):
                knobs[name] = values
                self._decode[name] = None
            else:
                labels = [v if isinstance(v, str) else repr(v) for v in values]
                if len(set(labels)) != len(labels):
                    raise _core.Error(
                        f"tune_params['{name}']: values {values!r} are not distinct as text")
                knobs[name] = labels
                self._decode[name] = dict(zip(labels, values))
        strings = [r for r in restrictions if isinstance(r, str)]
        self.dropped_restrictions = len(restrictions) - len(strings)
        try:
            self.space = _core.Space(knobs, strings)
        except _core.Error as error:
            # A restriction glimpse's expression language does not read: the caller filters
            # invalid configurations itself (e.g. Kernel Tuner's searchspace), so go on without.
            _log.warning("glimpse: restrictions not used (%s); invalid configurations are "
                         "filtered as they are proposed", error)
            self.space = _core.Space(knobs, [])
            self.dropped_restrictions = len(restrictions)

    def values(self, config):
        """A glimpse configuration (dict) → the parameter values in tune_params order."""
        out = []
        for name in self.names:
            value = config[name]
            decode = self._decode[name]
            out.append(value if decode is None else decode[value])
        return out

    def as_dict(self, config):
        return dict(zip(self.names, self.values(config)))

    def config(self, values):
        """Parameter values in tune_params order (or a dict by name) → a glimpse configuration."""
        if isinstance(values, dict):
            values = [values[name] for name in self.names]
        out = {}
        for name, value in zip(self.names, values):
            value = _plain_number(value)
            out[name] = value if self._decode[name] is None else (
                value if isinstance(value, str) else repr(value))
        return out
