"""The HTTP JSON API (optional extra ``[api]``): reading, scoring, waits and the ledgers of many tables."""
