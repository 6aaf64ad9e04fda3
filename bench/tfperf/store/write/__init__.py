"""What changes a results file, and what a change may do: every way records get into a file,
or get rewritten, without losing one.

* ``merge``   – documents of one runner and profile merged into one, order-independent and
  idempotent (identical records collapse, no other record is dropped);
* ``append``  – a run adding a scenario's records to its file under the file's lock;
* ``intake``  – the CI merge step: incoming files validated one by one and merged into
  ``<data>/results/<runner>/<profile>.json``;
* ``relabel`` – a document's identities rewritten (a runner renamed, package versions a run
  failed to record filled in), every hash and reference kept consistent;
* ``guard``   – what a data pull request may change: add records to results files, never
  remove or rewrite one, and the benchmarks bot's runners left to the bot.

Builds on ``disk/`` and ``format/``.
"""
