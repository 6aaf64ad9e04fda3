"""Chart rows are typed (a case's parameters and settings as mappings); Vega-Lite gets them
as one flat table whose column names follow one rule, in a fixed order (a chart's bytes and
its data file's name depend on it). No TensorFlow."""

from __future__ import annotations

from tfperf.analyse.records import ChartRow, RowCase, SettingsRow

CASE = RowCase(params={"batch": 1, "model": "mlp"}, param_words={"batch": "batch 1", "model": "MLP"},
               settings={"keras": "3"}, setting_words={"keras": "Keras 3"}, variant="call", label="model(x)")


def test_a_rows_case_becomes_id_and_word_columns_in_place() -> None:
    row = ChartRow(runner="r", profile="full", version="TF 2.21", tensorflow="2.21.0", keras="3.13.0", newest=True,
                   case=CASE, median=1e-3, ci_low=9e-4, ci_high=1.1e-3, n=30, first_call=0.2, speedup=None,
                   speedup_low=None, speedup_high=None, correct=True, stale=False, status="ok", commit="c",
                   date="2026-11-29", source="r/full.json")
    cols = row.columns()
    assert list(cols) == ["runner", "profile", "version", "tensorflow", "keras", "newest",
                          "p_batch", "p_model", "v_batch", "v_model", "s_keras", "l_keras", "variant", "label",
                          "median", "ci_low", "ci_high", "n", "first_call", "speedup", "speedup_low",
                          "speedup_high", "correct", "stale", "status", "commit", "date", "source"]
    assert (cols["p_batch"], cols["v_batch"], cols["s_keras"], cols["l_keras"]) == (1, "batch 1", "3", "Keras 3")
    assert cols["speedup"] is None                    # no default to compare with: null, not left out


def test_a_settings_row_has_its_own_columns() -> None:
    row = SettingsRow(runner="r", version="TF 2.21", case=CASE, median=1e-3, ci_low=None, ci_high=None, n=30,
                      speedup=1.2, speedup_low=1.1, speedup_high=1.3, finding="faster", noise=0.02, status="ok",
                      commit="c", date="2026-11-29")
    cols = row.columns()
    assert list(cols)[:3] == ["runner", "version", "p_batch"] and list(cols)[-3:] == ["status", "commit", "date"]
    assert "first_call" not in cols and cols["finding"] == "faster"
