//! What [`super::update`] asks the DOM layer to do.

use super::{theorem, Form, Job, Slot, SourceKind, Status};
use crate::view::charts::{ChartKind, MapView};
use crate::view::export::Export;

/// What the DOM layer is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Put the form's controls and the map's controls at these values.
    ShowForm(Box<Form>, MapView),
    /// `#status`.
    Status(Status, String),
    /// `#error` (None hides it).
    Error(Option<String>),
    /// `#progress`, in [0, 1].
    Progress(f64),
    /// `#estimate`.
    Estimate(String),
    /// The cancel button.
    CancelEnabled(bool),
    /// `#file-info` / `#learned-info`.
    FileInfo(Slot, String),
    /// Read the file just chosen in this slot.
    ReadFile(Slot),
    /// Forget a file (its input, and the tensor picker for the learned table).
    Clear(Slot),
    /// Fetch the shipped file of a slot ([`Slot::shipped`]); then [`super::Msg::FileLoaded`] (or
    /// [`super::Msg::FileUnreadable`]).
    FetchShipped(Slot),
    /// Fetch a shipped model's files into [`Slot::Model`], with `#model-progress`; then
    /// [`super::Msg::FileLoaded`] (or [`super::Msg::FileUnreadable`]).
    FetchModel(posgeo::demos::preset::ShippedModel),
    /// Set one option control (by id) to a value.
    SetControl(&'static str, String),
    /// Check this corpus radio button.
    SelectSource(SourceKind),
    /// Send a job to the worker.
    Post(Box<Job>),
    /// Terminate the worker (if any) and start a fresh one.
    RestartWorker,
    /// Have the worker (if up) start its helper workers now: a file it will count with them
    /// was chosen, and they load meanwhile.
    WarmHelpers,
    /// Replace the page's query string and the share link.
    WriteUrl(String),
    /// Summary, table, Shepard picker, then every chart one per task; then [`super::Msg::Rendered`].
    RenderResults(u32),
    /// Redraw the stress table.
    RenderTable,
    /// Redraw one chart.
    Draw(ChartKind),
    /// Move the map's sliders.
    ShowMap(MapView),
    /// Offer a download.
    Download(Export),
    /// Show the Theorem 1 demonstration.
    ShowDemo(theorem::Shown),
    /// Show the lecture view at this step (None: the dashboard).
    ShowLecture(Option<usize>),
    /// Something for the Learn panel.
    Learn(super::learn::LearnEffect),
}
