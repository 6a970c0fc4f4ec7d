//! **What fails between the page and its workers**: [`WorkerError`], the one error of the
//! worker layer — the analysis worker, the training workers and the page's side of both (the
//! helpers' jobs have their own, [`super::jobs::JobError`], which the worker reports beside a
//! run it finishes itself). Each failure ends one run or training, whose id travels with it,
//! and [`WorkerError::message`] is the one place its words are chosen. Code decides on the
//! variant, never on the words.

use super::learn::LearnResponse;
use super::Response;
use posgeo::error::{Frontend, PosgeoError};

/// What a failure ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// An analysis run.
    Run,
    /// A training of the Learn panel.
    Training,
}

impl Task {
    fn name(self) -> &'static str {
        match self {
            Task::Run => "run",
            Task::Training => "training",
        }
    }
}

/// A failure of the worker layer.
#[derive(Debug)]
pub enum WorkerError {
    /// The core refused the work (bad input, options past their range, the memory budget).
    Core(PosgeoError),
    /// A request whose bytes the worker could not read (postcard's reason).
    Unreadable {
        /// What it asked for.
        task: Task,
        /// Why.
        why: String,
    },
    /// A message of no kind the worker knows (the properties it had).
    Unknown {
        /// Its properties' names.
        properties: String,
    },
    /// A worker could not post its answer to the page (the browser's reason).
    Unposted {
        /// What the answer was for.
        task: Task,
        /// Why.
        why: String,
    },
    /// The page could not read a worker's answer.
    Unread {
        /// What the answer was for.
        task: Task,
        /// Why.
        why: String,
    },
    /// The page could not post a request to a worker (training worker k, or the analysis
    /// worker when `worker` is `None`).
    Unsent {
        /// What the request asked for.
        task: Task,
        /// Which training worker.
        worker: Option<usize>,
        /// The browser's reason.
        why: String,
    },
    /// The page could not start its worker.
    Unstarted {
        /// The browser's reason.
        why: String,
    },
    /// A training worker asked to summarise a training it did not prepare.
    NothingToSummarise,
}

impl From<PosgeoError> for WorkerError {
    fn from(e: PosgeoError) -> Self {
        WorkerError::Core(e)
    }
}

impl WorkerError {
    /// The user's message for this failure of run or training `id`.
    pub fn message(&self, id: u32) -> String {
        match self {
            WorkerError::Core(e) => e.message_for(Frontend::Page),
            WorkerError::Unreadable { task: Task::Run, why } => {
                format!("the worker could not read run {id}'s request ({why})")
            }
            WorkerError::Unreadable { task: Task::Training, why } => {
                format!("the training worker could not read training {id}'s request ({why})")
            }
            WorkerError::Unknown { properties } => {
                format!("the worker received a message it does not know (properties: {properties})")
            }
            WorkerError::Unposted { task, why } => {
                format!("the worker could not send {} {id}'s answer to the page ({why})", task.name())
            }
            WorkerError::Unread { task, why } => {
                format!("the page could not read the worker's answer to {} {id} ({why}); the results shown are the last ones", task.name())
            }
            WorkerError::Unsent { task, worker: Some(k), why } => {
                format!("the page could not send {} {id} to its worker {k} ({why})", task.name())
            }
            WorkerError::Unsent { task, worker: None, why } => {
                format!("the page could not send {} {id} to its worker ({why})", task.name())
            }
            WorkerError::Unstarted { why } => format!("the page could not start its worker ({why})"),
            WorkerError::NothingToSummarise => format!("this worker has no training {id} to summarise"),
        }
    }

    /// As the analysis worker's answer ending run `id`.
    pub fn response(&self, id: u32) -> Response {
        Response::Error { id, message: self.message(id) }
    }

    /// As a training worker's answer ending training `id`.
    pub fn learn_response(&self, id: u32) -> LearnResponse {
        LearnResponse::Error { id, message: self.message(id) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every failure names the run or training it ends and what failed; the core's refusal
    /// keeps the core's words for the page.
    #[test]
    fn each_failure_names_its_task_and_id() {
        let why = || "because".to_string();
        let cases = [
            (WorkerError::Unreadable { task: Task::Run, why: why() }, "run 7's request"),
            (WorkerError::Unreadable { task: Task::Training, why: why() }, "training 7's request"),
            (WorkerError::Unposted { task: Task::Training, why: why() }, "training 7's answer"),
            (WorkerError::Unread { task: Task::Run, why: why() }, "answer to run 7"),
            (
                WorkerError::Unsent { task: Task::Training, worker: Some(2), why: why() },
                "send training 7 to its worker 2",
            ),
            (WorkerError::Unsent { task: Task::Run, worker: None, why: why() }, "send run 7 to its worker ("),
        ];
        for (e, words) in cases {
            let m = e.message(7);
            assert!(m.contains(words) && m.contains("because"), "{m}");
            assert_eq!(e.response(7), Response::Error { id: 7, message: m.clone() });
            assert_eq!(e.learn_response(7), LearnResponse::Error { id: 7, message: m });
        }
        let core = PosgeoError::option("alpha", "must be ≥ 0");
        let page = core.message_for(Frontend::Page);
        assert_eq!(WorkerError::from(core).message(3), page);
        assert!(WorkerError::Unknown { properties: "a, b".into() }.message(0).contains("(properties: a, b)"));
        assert!(WorkerError::NothingToSummarise.message(4).contains("training 4"));
        assert!(WorkerError::Unstarted { why: why() }.message(0).contains("start its worker (because)"));
    }
}
