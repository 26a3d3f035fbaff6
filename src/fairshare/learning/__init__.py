"""Training code (torch; never reads config files, only plain arguments).

Shared engine: ``models`` (every architecture, quirks as options), ``slimmable`` (slimmable layers, width control),
``engine`` (local training of many clients: sequential reference and batched executor), ``aggregation``
(weighted, uniform, masked averaging), ``checkpoint`` (resumable round loops, tidy metrics). Per-paper loops:
``mmfl``, ``aequa``, ``rewards``, ``valuation``. docs/engine.md describes the engine's API.
"""
