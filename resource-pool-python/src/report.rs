//! `rp.Report` (of `check` and `verl.check`) and `rp.LintReport` (of `lint`): the JSON
//! contract's fields as Python values, and the CLI's human report as `str()`.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use resource_pool::Cluster;
use resource_pool::check::CheckReport;
use resource_pool::check::suggest::Suggestions;
use resource_pool::report::{
    Finding, LaunchSummary, SeverityCounts, human_report_with, render_human, summary,
};
use serde_json::Value;

use crate::to_python;

/// What a check found: the verdicts, both placements, the diagnostics, and what the CLI
/// prints for people.
#[pyclass(module = "resource_pool", name = "Report", frozen)]
pub struct Report {
    /// Printed before the report (`verl builds: ...` of `resource-pool verl`).
    heading: String,
    /// What the verl release the check followed does with the layout.
    launch: Option<LaunchSummary>,
    findings: Vec<Finding>,
    report: Option<CheckReport>,
    /// The layouts suggested when it does not place (drawn under the plan, as the CLI
    /// draws them).
    suggestions: Option<Suggestions>,
    cluster: Cluster,
    ok: bool,
    json: Value,
    /// The JSON result as Python objects, made at the first look (a 10,000-slot placement
    /// is 20,000 dicts: no cost for a caller that only reads `ok`).
    fields: PyOnceLock<Py<PyDict>>,
    config: Option<String>,
}

impl Report {
    /// A report of a check's parts; `json` is its JSON result, `config` the config text
    /// checked when Python's arguments were written as one.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        heading: String,
        launch: Option<LaunchSummary>,
        findings: Vec<Finding>,
        report: Option<CheckReport>,
        suggestions: Option<Suggestions>,
        cluster: Cluster,
        ok: bool,
        json: Value,
        config: Option<String>,
    ) -> Report {
        Report {
            heading,
            launch,
            findings,
            report,
            suggestions,
            cluster,
            ok,
            json,
            fields: PyOnceLock::new(),
            config,
        }
    }

    fn field(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        let fields = self
            .fields
            .get_or_try_init(py, || -> PyResult<Py<PyDict>> {
                let fields = PyDict::new(py);
                if let Value::Object(map) = &self.json {
                    for (key, value) in map {
                        let object = if key == "diagnostics" {
                            diagnostics_list(py, value)?
                        } else {
                            to_python::value(py, value)?
                        };
                        fields.set_item(key, object)?;
                    }
                }
                Ok(fields.unbind())
            })?;
        Ok(fields
            .bind(py)
            .get_item(key)?
            .map_or_else(|| py.None(), Bound::unbind))
    }

    fn text(&self, colour: bool) -> String {
        let human = human_report_with(
            &self.findings,
            self.report.as_ref(),
            self.suggestions.as_ref(),
            &self.cluster,
            self.launch.as_ref(),
            (colour, colour),
        );
        format!("{}{human}", self.heading)
    }
}

/// The JSON diagnostics as dicts with every key.
fn diagnostics_list(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    let list = pyo3::types::PyList::empty(py);
    if let Value::Array(items) = value {
        for item in items {
            list.append(to_python::diagnostic(py, item)?)?;
        }
    }
    Ok(list.into_any().unbind())
}

/// `LayoutError` of `resource_pool._errors`, with the report and its diagnostics.
fn layout_error(py: Python<'_>, message: String, report: Py<PyAny>) -> PyResult<PyErr> {
    let class = py.import("resource_pool._errors")?.getattr("LayoutError")?;
    let error = class.call1((message,))?;
    let diagnostics = report.bind(py).getattr("diagnostics")?;
    error.setattr("report", report)?;
    error.setattr("diagnostics", diagnostics)?;
    Ok(PyErr::from_value(error))
}

/// `errors=2 warnings=1 advice=1`: the counts of the summary line `str()` ends with (the
/// facade's own counting, so `repr` and the line cannot disagree).
fn counts_text(findings: &[Finding]) -> String {
    let SeverityCounts {
        errors,
        warnings,
        advice,
    } = SeverityCounts::of(findings);
    format!("errors={errors} warnings={warnings} advice={advice}")
}

#[pymethods]
impl Report {
    /// Whether the check passes: what the CLI's exit status 0 means.
    #[getter]
    fn ok(&self) -> bool {
        self.ok
    }

    /// `True` (placeable), `False` (not placeable) or `None` (undecided, or nothing was
    /// checked because the config has errors).
    #[getter]
    fn feasible(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "feasible")
    }

    /// What Ray's scheduler does with the groups in verl's order: `"places"`, `"hangs"`,
    /// `"depends_on_ties"`, or `None`.
    #[getter]
    fn ray(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "ray")
    }

    /// A placement of every node-slot: `[{"pool", "slot", "node"}, ...]`.
    #[getter]
    fn placement(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "placement")
    }

    /// Where Ray's scheduler puts the node-slots it places, in its order.
    #[getter]
    fn ray_placement(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "ray_placement")
    }

    /// Every problem: `[{"code", "severity", "message", "help", "file", "line",
    /// "column"}, ...]`.
    #[getter]
    fn diagnostics(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "diagnostics")
    }

    /// The suggested layouts, as `as_dict()["suggestions"]`: `[{"when", "pools",
    /// "accelerators", "overrides", "undecided"}, ...]` (and `"holders"` for `"idle"`);
    /// empty when none is suggested.
    #[getter]
    fn suggestions(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "suggestions")
    }

    /// The Ray version the dashboard said it runs (`None` for other sources).
    #[getter]
    fn ray_version(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.field(py, "ray_version")
    }

    /// The config checked, as TOML: what `resource-pool check` would read to check the
    /// same (`None` for `verl.check`, which reads verl's settings).
    #[getter]
    fn config(&self) -> Option<String> {
        self.config.clone()
    }

    /// The whole JSON result, as `--format json` prints it (a new dict each call).
    fn as_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_python::value(py, &self.json)
    }

    /// The human report the CLI prints, coloured with ANSI escapes when `colour`.
    #[pyo3(signature = (colour = false))]
    fn render(&self, colour: bool) -> String {
        self.text(colour)
    }

    fn __str__(&self) -> String {
        self.text(false)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let show = |key: &str| -> PyResult<String> {
            Ok(self.field(py, key)?.bind(py).repr()?.to_string())
        };
        Ok(format!(
            "<resource_pool.Report ok={} feasible={} ray={} {}>",
            if self.ok { "True" } else { "False" },
            show("feasible")?,
            show("ray")?,
            counts_text(&self.findings),
        ))
    }

    /// Raises `rp.LayoutError` (a `ValueError`) with this report when it is not ok;
    /// returns the report otherwise.
    fn raise_for_problems(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        let report = slf.get();
        if report.ok {
            return Ok(slf);
        }
        let message = report.text(false).trim_end().to_owned();
        Err(layout_error(
            slf.py(),
            message,
            slf.clone().into_any().unbind(),
        )?)
    }
}

/// What lint found in one config.
#[pyclass(module = "resource_pool", name = "LintReport", frozen)]
pub struct LintReport {
    name: String,
    findings: Vec<Finding>,
    ok: bool,
    diagnostics: Py<PyAny>,
}

impl LintReport {
    /// The report of the config shown as `name`.
    pub fn new(py: Python<'_>, name: String, findings: Vec<Finding>) -> PyResult<LintReport> {
        let ok = !findings.iter().any(Finding::is_error);
        let diagnostics = to_python::diagnostics(py, &findings)?;
        Ok(LintReport {
            name,
            findings,
            ok,
            diagnostics,
        })
    }

    /// As `resource-pool lint` prints a file: its diagnostics, then its verdict line.
    fn text(&self, colour: bool) -> String {
        let verdict = if self.ok { "valid" } else { "invalid" };
        format!(
            "{}{}: {verdict} ({})\n",
            render_human(&self.findings, colour),
            self.name,
            summary(&self.findings)
        )
    }
}

#[pymethods]
impl LintReport {
    /// Whether the config is valid (warnings allowed): the CLI's exit status 0.
    #[getter]
    fn ok(&self) -> bool {
        self.ok
    }

    /// Every problem, as `Report.diagnostics`.
    #[getter]
    fn diagnostics(&self, py: Python<'_>) -> Py<PyAny> {
        self.diagnostics.clone_ref(py)
    }

    /// The human report `resource-pool lint` prints, coloured when `colour`.
    #[pyo3(signature = (colour = false))]
    fn render(&self, colour: bool) -> String {
        self.text(colour)
    }

    fn __str__(&self) -> String {
        self.text(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "<resource_pool.LintReport {:?} ok={} {}>",
            self.name,
            if self.ok { "True" } else { "False" },
            counts_text(&self.findings),
        )
    }

    /// Raises `rp.LayoutError` when the config is invalid; returns the report otherwise.
    fn raise_for_problems(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        let report = slf.get();
        if report.ok {
            return Ok(slf);
        }
        let message = report.text(false).trim_end().to_owned();
        Err(layout_error(
            slf.py(),
            message,
            slf.clone().into_any().unbind(),
        )?)
    }
}
