//! Reading one `kubectl ... -o json` file: nodes and pods out of the JSON, every problem
//! collected with its span (found by JSON path).

use std::collections::BTreeMap;

use serde_json::Value;

use super::super::json_spans::{Locator, Step, offset_of_line_column};
use super::*;

/// A JSON path: the steps from the document's root.
pub(super) type Path<'d> = Vec<Step<'d>>;

/// The path with more steps.
pub(super) fn with<'d>(path: &[Step<'d>], more: &[Step<'d>]) -> Path<'d> {
    let mut out = path.to_vec();
    out.extend_from_slice(more);
    out
}

/// Reads one file, collecting its problems.
pub(super) struct Reader<'t> {
    text: &'t str,
    kind: &'static str,
    pub(super) errors: Vec<KubectlError>,
    spans: Locator<'t>,
}

impl<'t> Reader<'t> {
    pub(super) fn new(text: &'t str, kind: &'static str) -> Reader<'t> {
        Reader {
            text,
            kind,
            errors: Vec::new(),
            spans: Locator::new(text, "items"),
        }
    }

    pub(super) fn document(&self) -> Result<Value, Vec<KubectlError>> {
        serde_json::from_str(self.text).map_err(|e| {
            let offset = offset_of_line_column(self.text, e.line(), e.column());
            vec![KubectlError::Syntax {
                detail: e.to_string(),
                span: (offset, 0).into(),
            }]
        })
    }

    pub(super) fn finish<T>(self, out: T) -> Result<T, Vec<KubectlError>> {
        if self.errors.is_empty() {
            Ok(out)
        } else {
            Err(self.errors)
        }
    }

    pub(super) fn span(&self, path: &[Step<'_>]) -> miette::SourceSpan {
        self.spans
            .span(path)
            .map(|range| (range.start, range.len()).into())
            .unwrap_or_else(|| (0, 0).into())
    }

    fn shape(&mut self, path: &[Step<'_>], detail: String) {
        let span = self.span(path);
        self.errors.push(KubectlError::Shape {
            kind: self.kind,
            detail,
            span,
        });
    }

    /// The items of a `List`, or the document itself when it is one object of `kind`.
    pub(super) fn items<'d>(&mut self, doc: &'d Value, kind: &str) -> Vec<(Path<'d>, &'d Value)> {
        if doc.get("kind").and_then(Value::as_str) == Some(kind) {
            return vec![(Vec::new(), doc)];
        }
        match doc.get("items") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| (vec![Step::Key("items"), Step::Index(i)], item))
                .collect(),
            Some(_) => {
                self.shape(&[Step::Key("items")], "`items` is not an array".into());
                Vec::new()
            }
            None => {
                self.shape(&[], "no `items` array".into());
                Vec::new()
            }
        }
    }

    /// The item's `metadata.name`, or a shape error (`None`). An empty name is one too:
    /// Kubernetes gives none, and a cluster file refuses a node without an id.
    fn name<'d>(&mut self, path: &[Step<'d>], item: &'d Value, what: &str) -> Option<&'d str> {
        match item.pointer("/metadata/name") {
            Some(Value::String(name)) if name.is_empty() => {
                self.shape(
                    &with(path, &[Step::Key("metadata"), Step::Key("name")]),
                    format!("{what} `metadata.name` is empty"),
                );
                None
            }
            Some(Value::String(name)) => Some(name),
            Some(_) => {
                self.shape(
                    &with(path, &[Step::Key("metadata"), Step::Key("name")]),
                    format!("{what} `metadata.name` is not a string"),
                );
                None
            }
            None => {
                self.shape(path, format!("a {what} without `metadata.name`"));
                None
            }
        }
    }

    /// An object at `at` (absent: `None` without an error).
    fn object<'d>(
        &mut self,
        path: &[Step<'d>],
        value: Option<&'d Value>,
        shown: &str,
    ) -> Option<&'d serde_json::Map<String, Value>> {
        match value {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(_) => {
                self.shape(path, format!("`{shown}` is not an object"));
                None
            }
        }
    }

    /// The mapped resources of the resource list `value` at `path`, shown as `shown` if
    /// it is not an object; none when it is absent.
    fn resource_list<'d>(
        &mut self,
        path: &[Step<'d>],
        value: Option<&'d Value>,
        shown: &str,
        place: &str,
    ) -> Resources {
        match self.object(path, value, shown) {
            Some(map) => self.resources(path, map, place),
            None => Resources::new(),
        }
    }

    /// The mapped resources of a resource list (`capacity`, `requests`, ...).
    fn resources<'d>(
        &mut self,
        path: &[Step<'d>],
        map: &'d serde_json::Map<String, Value>,
        place: &str,
    ) -> Resources {
        let mut out = Resources::new();
        for (key, value) in map {
            let Some(name) = model_name(key) else {
                continue;
            };
            let at = with(path, &[Step::Key(key)]);
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => {
                    self.shape(&at, format!("{place}: `{key}` is not a quantity string"));
                    continue;
                }
            };
            let amount = parse_quantity(&text).and_then(|amount| {
                out.add(name, amount).ok_or(QuantityError::TooLarge)?;
                Ok(amount)
            });
            if let Err(reason) = amount {
                let span = self.span(&at);
                self.errors.push(KubectlError::BadQuantity {
                    place: place.to_owned(),
                    key: key.clone(),
                    value: text,
                    reason,
                    span,
                });
            }
        }
        out
    }

    /// A node of `kubectl get nodes -o json`: its resources, kept labels, address, and
    /// why it is unusable, if it is; `None` (reported) without an object or a name.
    pub(super) fn node<'d>(&mut self, path: &[Step<'d>], item: &'d Value) -> Option<KubeNode> {
        if !item.is_object() {
            self.shape(path, "a node that is not an object".into());
            return None;
        }
        let name = self.name(path, item, "node")?;
        let status_path = with(path, &[Step::Key("status")]);
        let list = |reader: &mut Self, key: &'static str| -> Resources {
            let at = with(&status_path, &[Step::Key(key)]);
            let shown = format!("status.{key}");
            let value = item.pointer(&format!("/status/{key}"));
            reader.resource_list(&at, value, &shown, &format!("node `{name}` {shown}"))
        };
        let capacity = list(self, "capacity");
        let allocatable = list(self, "allocatable");
        let labels = self.kept_labels(path, item);
        Some(KubeNode {
            name: name.to_owned(),
            address: internal_ip(item),
            capacity,
            allocatable,
            labels,
            unusable: unusable(item, name),
        })
    }

    /// The node's labels that the check reads ([`KEPT_LABELS`]).
    fn kept_labels<'d>(&mut self, path: &[Step<'d>], item: &'d Value) -> BTreeMap<String, String> {
        let mut labels = BTreeMap::new();
        let labels_path = with(path, &[Step::Key("metadata"), Step::Key("labels")]);
        if let Some(map) = self.object(
            &labels_path,
            item.pointer("/metadata/labels"),
            "metadata.labels",
        ) {
            for key in KEPT_LABELS {
                if let Some(Value::String(value)) = map.get(*key) {
                    labels.insert((*key).to_owned(), value.clone());
                }
            }
        }
        labels
    }

    pub(super) fn pod<'d>(&mut self, path: &[Step<'d>], item: &'d Value) -> Option<PodRequest> {
        if !item.is_object() {
            self.shape(path, "a pod that is not an object".into());
            return None;
        }
        let node = item
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())?;
        let phase = item.pointer("/status/phase").and_then(Value::as_str);
        if matches!(phase, Some("Succeeded" | "Failed")) {
            return None;
        }
        let name = self.name(path, item, "pod")?;
        let namespace = item
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default");
        let pod = format!("{namespace}/{name}");
        let spec_path = with(path, &[Step::Key("spec")]);

        let containers = self.containers(&spec_path, item, "containers", &pod);
        let mut request = Resources::new();
        for (container, _) in &containers {
            add_saturating(&mut request, container);
        }
        // Init containers run one at a time before the containers; sidecars
        // (`restartPolicy: Always`) keep running alongside what follows them.
        let mut sidecars = Resources::new();
        let mut init_peak = Resources::new();
        for (container, sidecar) in self.containers(&spec_path, item, "initContainers", &pod) {
            if sidecar {
                add_saturating(&mut sidecars, &container);
                init_peak = max_each(&init_peak, &sidecars);
            } else {
                let mut running = container;
                add_saturating(&mut running, &sidecars);
                init_peak = max_each(&init_peak, &running);
            }
        }
        add_saturating(&mut request, &sidecars);
        let mut request = max_each(&request, &init_peak);
        let overhead = self.resource_list(
            &with(&spec_path, &[Step::Key("overhead")]),
            item.pointer("/spec/overhead"),
            "spec.overhead",
            &format!("pod `{pod}` overhead"),
        );
        add_saturating(&mut request, &overhead);
        Some(PodRequest {
            pod,
            node: node.to_owned(),
            request,
        })
    }

    /// The effective requests of `spec.<key>[]`, each with whether it is a sidecar.
    fn containers<'d>(
        &mut self,
        spec_path: &[Step<'d>],
        item: &'d Value,
        key: &'static str,
        pod: &str,
    ) -> Vec<(Resources, bool)> {
        let at = with(spec_path, &[Step::Key(key)]);
        let list = match item.get("spec").and_then(|s| s.get(key)) {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(list)) => list,
            Some(_) => {
                self.shape(&at, format!("pod `{pod}`: `spec.{key}` is not an array"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, container) in list.iter().enumerate() {
            let container_path = with(&at, &[Step::Index(i)]);
            let cname = container.get("name").and_then(Value::as_str).unwrap_or("?");
            let place = |which: &str| format!("pod `{pod}` container `{cname}` {which}");
            let read = |reader: &mut Self, which: &'static str| -> Resources {
                let list_path = with(&container_path, &[Step::Key("resources"), Step::Key(which)]);
                let value = container.get("resources").and_then(|r| r.get(which));
                reader.resource_list(
                    &list_path,
                    value,
                    &format!("resources.{which}"),
                    &place(which),
                )
            };
            let requests = read(self, "requests");
            let limits = read(self, "limits");
            // A limit stands for a missing request, resource by resource.
            let mut effective = requests.clone();
            for (name, amount) in limits.iter() {
                if requests.get(name).is_zero() && !has_request_for(container, name) {
                    effective.set(name, amount);
                }
            }
            let sidecar = container.get("restartPolicy").and_then(Value::as_str) == Some("Always");
            out.push((effective, sidecar));
        }
        out
    }
}

/// Whether the container's requests name a key that maps to `name` (an explicit zero
/// request is kept, not replaced by the limit).
fn has_request_for(container: &Value, name: &str) -> bool {
    container
        .pointer("/resources/requests")
        .and_then(Value::as_object)
        .is_some_and(|map| map.keys().any(|k| model_name(k) == Some(name)))
}

/// The node's `InternalIP` address.
fn internal_ip(item: &Value) -> Option<String> {
    item.pointer("/status/addresses")
        .and_then(Value::as_array)
        .and_then(|addresses| {
            addresses
                .iter()
                .find(|a| a.get("type").and_then(Value::as_str) == Some("InternalIP"))
        })
        .and_then(|a| a.get("address"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Why the node `name` takes no pods (not Ready, cordoned), with what to do about it;
/// `None` when it does.
fn unusable(item: &Value, name: &str) -> Option<Unusable> {
    let mut problems = Vec::new();
    let mut remedies = Vec::new();
    let ready = item
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|conditions| {
            conditions
                .iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
        });
    match ready {
        None => {
            problems.push("no Ready condition".to_owned());
            remedies.push(format!(
                "`kubectl describe node {name}` shows its kubelet's state"
            ));
        }
        Some(condition) => {
            if let Some(problem) = not_ready(condition) {
                problems.push(problem);
                remedies.push(format!(
                    "`kubectl describe node {name}` shows why it is not Ready"
                ));
            }
        }
    }
    if item.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        problems.push("cordoned (spec.unschedulable)".to_owned());
        remedies.push(format!("`kubectl uncordon {name}` if the job may use it"));
    }
    (!problems.is_empty()).then(|| Unusable {
        reason: problems.join("; "),
        remedy: remedies.join("; "),
    })
}

/// The problem a Ready condition states (`Ready=False: reason: message`); `None` when its
/// status is `True`.
fn not_ready(condition: &Value) -> Option<String> {
    let status = condition
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("Unknown");
    if status == "True" {
        return None;
    }
    let text = |key: &str| {
        condition
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let mut problem = format!("Ready={status}");
    match (text("reason"), text("message")) {
        (Some(r), Some(m)) => problem.push_str(&format!(": {r}: {m}")),
        (Some(x), None) | (None, Some(x)) => problem.push_str(&format!(": {x}")),
        (None, None) => {}
    }
    Some(problem)
}
