/// What a flow did with one event. Every flow in this module answers the same way: the event
/// is taken and the flow's `state` says what to show or do next, or it is refused — the state
/// is unchanged and `problem` (also on the flow, for rendering) says why in a person's words.
/// Flows never throw for a refused event: a front end shows the problem and asks again.
public enum FlowStep<Problem: Sendable & Equatable>: Sendable, Equatable {
    case taken
    case refused(Problem)

    /// The refusal's reason, nil when the event was taken.
    public var problem: Problem? {
        if case .refused(let problem) = self { problem } else { nil }
    }
}
