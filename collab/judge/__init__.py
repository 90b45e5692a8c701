"""The Judge, in one place: ``labels`` (it reads the seats as "Position 1…N", never by
role), ``answer`` (what collab checks in its answer — the required sections — and does with
it before showing or saving it), ``pick`` (``--judge-agent auto``: a Judge of another agent
family). The call itself is one turn like any other (``turn_taking.Turns.judge``)."""
