"""DamageStep.first_row: the first row of assignment_blocks without listing the others (what the effects model reads
as the other side's reply when no reply can change an objective, trample.optimize.effects.reply_groups). Checked on
generated boards, every side and engine, banding and options mixed in: the same row as the listing's first, or None
exactly when there is no legal assignment."""

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, scenarios, with_banding

from trample.engines import engine_names
from trample.step import DamageStep


def _listed_first(step: DamageStep):
    for block in step.assignment_blocks():
        if len(block):
            return block[0].tolist()
    return None


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_the_first_row_is_the_listings_first(data):
    # 510.1a-c (every legal assignment, in the listing's order), 702.22j/k (who divides), 702.19b/c (gates)
    scenario = data.draw(scenarios(max_work=500))
    if data.draw(st.booleans()):
        scenario = data.draw(with_banding(scenario))
    side = data.draw(st.sampled_from(["attacking", "defending", "both"]))
    engine = data.draw(st.sampled_from(engine_names()))
    step = DamageStep(scenario, side=side, engine=engine)
    assert step.first_row() == _listed_first(DamageStep(scenario, side=side, engine=engine))


def test_a_board_without_combatants_has_one_empty_row():
    step = DamageStep({"players": [{"id": "p", "life": 20}], "attackers": [], "blockers": []})
    assert step.first_row() == _listed_first(step) == []
