"""Example adapters shipped with the package (``hermes-toolcall conformance --adapter MODULE:CALLABLE``)."""
