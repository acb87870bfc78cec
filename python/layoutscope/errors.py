"""The exceptions layoutscope raises."""

from __future__ import annotations


class LayoutError(ValueError):
    """An input the engine refused, carrying the engine's own error value.

    Attributes:
        message: what is wrong, in the engine's words.
        column: 1-based column (in code points) of the offending token in ``text``; 0 when the error has no
            place in a text (a bad shape, a bad option).
        field: the argument, mode or axis at fault (``"shape"``, ``"mode 2"``, ``"width"``), may be empty.
        text: the text that was read, when there was one.

    >>> import layoutscope
    >>> try:
    ...     layoutscope.Layout("S[(8,4):(4,1]")
    ... except layoutscope.LayoutError as e:
    ...     print(e.column)
    13
    """

    def __init__(self, message: str, column: int = 0, field: str = "", text: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.field = field
        self.text = text

    def __reduce__(self):  # picklable with all four values, e.g. across multiprocessing
        return (type(self), (self.message, self.column, self.field, self.text))

    def __str__(self) -> str:
        where = []
        if self.column:
            where.append(f"column {self.column}")
        if self.field:
            where.append(self.field)
        head = f"{', '.join(where)}: {self.message}" if where else self.message
        if self.text and self.column:
            # The caret under the bad column, as the CLI prints it.
            return f"{head}\n  {self.text}\n  {' ' * (self.column - 1)}^"
        return head


class LayoutIndexError(LayoutError, IndexError):
    """An element index or coordinate outside the layout's shape: an IndexError, as a sequence raises (so
    ``for``-style loops and ``except IndexError`` work), and a LayoutError with ``field`` ``"coord"`` or
    ``"index"``."""


class FeatureUnavailable(RuntimeError):
    """A part of layoutscope that this build of the extension does not contain (it names which)."""
