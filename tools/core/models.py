"""Answer models that leave their empty lists out when written, so an answer carries only what it says.

A reader (the checkpoint loaded back, a test) gets `[]` again from the field's default. The serializer has no
return type on purpose: pydantic would take one for the model's output schema in place of its fields.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer


class QuietLists(BaseModel):
    """Subclasses name in `quiet_lists` the list fields that are left out while empty."""

    quiet_lists: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _without_empty_lists(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        if isinstance(data, dict):
            for key in self.quiet_lists:
                if data.get(key) == []:
                    del data[key]
        return data
