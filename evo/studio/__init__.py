"""``evo studio``: a local web application to design, play, analyze and evolve creatures on evo's physics.

The server (Starlette on uvicorn, the ``studio`` extra) streams frames computed by :func:`evo.simulate`;
the page under ``static/`` draws and edits. Protocol and security: docs/studio.md and docs/internals.md.
"""
