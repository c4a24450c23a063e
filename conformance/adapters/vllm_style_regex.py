"""The example adapter, under the path the docs used before it shipped in the package.

    hermes-toolcall conformance --adapter hermes_toolcall.conformance.examples._vllm_style_regex:adapter
"""

from hermes_toolcall.conformance.examples._vllm_style_regex import adapter

__all__ = ["adapter"]
