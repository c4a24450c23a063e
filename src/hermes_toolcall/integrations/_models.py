"""Building the servers' pydantic models on the per-delta path without pydantic's per-call work.

Both servers want a few small models per delta (vLLM: ``DeltaMessage`` → ``DeltaToolCall`` →
``DeltaFunctionCall``; SGLang: ``StreamingParseResult`` → ``ToolCallItem``). Validating them costs
more than parsing the delta, and even ``model_construct`` walks the class's fields (aliases,
defaults) on every call. The values the adapters pass are well-typed by construction and give every
field, so ``builder`` sets the instance's state directly, exactly as ``model_construct(**values)``
sets it (the servers' tests check both agree, fields set included). A class that needs more
(aliases, private attributes, a post-init hook, a root model) gets ``model_construct`` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["builder", "fields_set", "plain", "state_parts"]

#: What builds a model instance directly: ``cls.__new__`` and the setters of its ``__dict__``,
#: ``__pydantic_fields_set__``, ``__pydantic_extra__`` and ``__pydantic_private__``, then whether
#: ``model_construct`` gives it an (empty) extra dict.
_Setter = Callable[[Any, Any], None]
StateParts = tuple[Callable[..., Any], _Setter, _Setter, _Setter, _Setter, bool]


def plain(cls: Any) -> bool:
    """Whether ``cls.model_construct(**every field)`` only sets the instance's state.

    >>> class M:  # a stand-in with pydantic's class attributes
    ...     __pydantic_post_init__ = None
    ...     __private_attributes__: dict[str, object] = {}
    ...     __pydantic_root_model__ = False
    ...     __pydantic_fields__: dict[str, object] = {}
    >>> plain(M)
    True
    """
    return (
        not cls.__pydantic_post_init__
        and not cls.__private_attributes__
        and not cls.__pydantic_root_model__
        and all(f.alias is None and f.validation_alias is None for f in cls.__pydantic_fields__.values())
    )


def builder(cls: Any) -> Callable[[dict[str, Any]], Any]:
    """A function from every field's value to a ``cls`` instance, as ``cls.model_construct(**values)`` builds it.

    Args:
        cls: a pydantic v2 model class.

    Returns:
        The builder; it takes the dict of values as the instance's ``__dict__`` (pass a fresh dict
        holding every field). Its instances share one fields-set (``fields_set(cls)``).
    """
    if not plain(cls):
        return lambda values: cls.model_construct(**values)
    new, set_dict, set_fields, set_extra, set_private, allow_extra = state_parts(cls)
    every = fields_set(cls)

    def build(values: dict[str, Any]) -> Any:
        m = new(cls)
        set_dict(m, values)
        set_fields(m, every)
        set_extra(m, {} if allow_extra else None)
        set_private(m, None)
        return m

    return build


def fields_set(cls: Any) -> set[str]:
    """The one fields-set the instances a builder makes share: every field's name.

    ``model_construct(**every field)`` gives each instance its own set of every field's name; pydantic
    only ever adds a name to it (on assignment) and every name is already in, so one shared set reads
    the same everywhere and saves building a set per instance (per delta). Extra dicts, which an
    unknown attribute would be written into, stay per instance.

    >>> class M:  # a stand-in with pydantic's class attribute
    ...     __pydantic_fields__ = {"a": None, "b": None}
    >>> sorted(fields_set(M))
    ['a', 'b']
    """
    return set(cls.__pydantic_fields__)


def state_parts(cls: Any) -> StateParts:
    """The parts ``builder`` sets a plain ``cls`` instance's state with (``StateParts``), for a caller that
    builds nested models in one function (``plain(cls)`` must hold)."""
    # the descriptors of the instance's state (BaseModel's __dict__ and slots): set directly, one C call
    # each, instead of object.__setattr__ looking each name up
    set_dict, set_fields, set_extra, set_private = (
        _descriptor(cls, name).__set__
        for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
    )
    allow_extra = cls.model_config.get("extra") == "allow"  # model_construct then gives an empty extra dict
    return cls.__new__, set_dict, set_fields, set_extra, set_private, allow_extra


def _descriptor(cls: Any, name: str) -> Any:
    """The data descriptor of ``name`` on ``cls`` (from the class of its MRO that defines it)."""
    for base in cls.__mro__:
        if name in base.__dict__:
            return base.__dict__[name]
    raise LookupError(f"{cls.__name__} has no {name}")  # pragma: no cover - pydantic v2 models have them all
