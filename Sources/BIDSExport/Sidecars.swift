import GazeModel
import JSONStream

/// The JSON documents of a run and of the dataset, as BIDS 1.10 names their fields.
enum Sidecars {
    /// Who made the measuring system (a webcam's own maker is unknown to the recorder).
    static let manufacturer = "gazerec (open-source webcam eye tracking)"
    static let eyeTrackingMethod = "webcam video: facial landmarks (dlib's 68-point model), pupil centre by means of "
        + "gradients, gaze from a per-participant calibration"

    /// A `_physio.json`: what BIDS requires of an eye-tracking recording, what is known of the
    /// hardware, the calibration (on-screen gaze only), the screen, and each column.
    static func physio(_ physio: PhysioRecording, task: String, _ recording: BIDSRecording) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("TaskName", .string(task)),
            ("PhysioType", .string("eyetrack")),
            ("SamplingFrequency", .number(physio.samplingFrequencyHertz(nominal: recording.nominalFramesPerSecond))),
            ("StartTime", .number(physio.timestamps.first ?? 0)),
            ("Columns", .array(physio.table.columns.map { .string($0.name) })),
            ("RecordedEye", .string(physio.recordedEye)),
            ("SampleCoordinateSystem", .string(physio.coordinateSystem)),
            // Names of the BIDS eye-tracking proposal's drafts, kept for readers written against them;
            // BIDS 1.10 has the same facts in each column's Units and in StimulusPresentation.ScreenOrigin.
            ("SampleCoordinateUnits", .string(physio.coordinateUnits)),
        ]
        if physio.coordinateSystem == "gaze-on-screen" { members.append(("EnvironmentCoordinates", .string("top-left"))) }
        members += system(recording)
        // Which session the run holds, so a later export into this dataset recognises it.
        members.append(("GazerecSessionID", .string(recording.sessionID)))
        if physio.coordinateSystem == "gaze-on-screen" {
            members += calibration(recording.calibration) + screen(recording)
        }
        return .object(members + physio.table.sidecarMembers)
    }

    /// The measuring system: gazerec's, or, for a session another system recorded, that system's
    /// name and version (its maker and method are not known here).
    static func system(_ recording: BIDSRecording) -> [(String, JSONValue)] {
        let model: [(String, JSONValue)] = recording.deviceModel.flatMap { $0.isEmpty ? nil : [("ManufacturersModelName", .string($0))] } ?? []
        if let other = recording.otherRecordingSystem {
            return model + [("SoftwareVersions", .string(other)),
                            ("EyeTrackingMethod", .string("recorded by another system (\(other), app id \(recording.appID)); "
                                                          + "gaze as that system reported it"))]
        }
        return [("Manufacturer", .string(manufacturer))] + model
            + [("SoftwareVersions", .string("gazerec \(recording.softwareVersion)")), ("EyeTrackingMethod", .string(eyeTrackingMethod))]
    }

    private static func calibration(_ calibration: BIDSCalibration?) -> [(String, JSONValue)] {
        guard let calibration else { return [] }
        var members: [(String, JSONValue)] = [("CalibrationCount", .number(Double(calibration.count)))]
        if let type = calibration.type { members.append(("CalibrationType", .string(type))) }
        if let error = calibration.averageErrorDegrees { members.append(("AverageCalibrationError", .number(error))) }
        if !calibration.targetPoints.isEmpty {
            members.append(("CalibrationUnit", .string("pixel")))
            members.append(("CalibrationPosition", .array(calibration.targetPoints.map { .array([.number($0.x), .number($0.y)]) })))
        }
        return members
    }

    /// The screen as BIDS's `StimulusPresentation` names it: origin, resolution (pixels), and
    /// when known size (m) and distance (m).
    static func screen(_ recording: BIDSRecording) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("ScreenOrigin", .array([.string("top"), .string("left")])),
            ("ScreenResolution", .array([.number(recording.screenWidthPoints.rounded()),
                                         .number(recording.screenHeightPoints.rounded())])),
        ]
        if let geometry = recording.geometry {
            members.append(("ScreenSize", .array([.number(geometry.widthMillimetres / 1000),
                                                  .number(geometry.heightMillimetres / 1000)])))
            members.append(("ScreenDistance", .number(geometry.distanceMillimetres / 1000)))
        }
        return members
    }

    /// The run's `_events.json`: the task's name, the screen the stimuli were shown on, and the columns.
    static func events(_ table: Tabular, task: String, _ recording: BIDSRecording) -> JSONValue {
        .object([("TaskName", .string(task)), ("StimulusPresentation", .object(screen(recording)))] + table.sidecarMembers)
    }

    /// A `_physioevents.json`: the columns, and that onsets are on the `timestamp` column's timeline.
    static func physioEvents(_ table: Tabular, task: String) -> JSONValue {
        .object([
            ("TaskName", .string(task)),
            ("Columns", .array(table.columns.map { .string($0.name) })),
            ("Description", .string("Fixations, blinks and long eye closures detected by the recorder, and the "
                                    + "experiment's event markers as messages.")),
            ("OnsetSource", .string("timestamp")),
        ] + table.sidecarMembers)
    }

    /// A new dataset's `dataset_description.json`.
    static func datasetDescription(name: String, softwareVersion: String) -> JSONValue {
        .object([
            ("Name", .string(name)),
            ("BIDSVersion", .string(BIDSDataset.bidsVersion)),
            ("DatasetType", .string("raw")),
            ("GeneratedBy", .array([.object([
                ("Name", .string("gazerec Eye-Tracking-BIDS export")),
                ("Version", .string(softwareVersion)),
                ("Description", .string("Eye-Tracking-BIDS export of webcam eye-tracking sessions")),
            ])])),
        ])
    }
}
