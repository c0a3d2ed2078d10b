"""A World at War (GMT): the position extension, board, supply tracer and Russian Resistance Table.

Why a package apart from rules/events/awaw/: the events (rule 60) read these; the overlay and tests
can use them too. See docs/awaw.md.
"""
