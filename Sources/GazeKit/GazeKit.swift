/// One import for programs built on gazerec's libraries: `import GazeKit` brings the vocabulary
/// (`GazeModel`), the math (`GazeCore`), session analysis (`GazeAnalysis`), figures (`GazeFigures`), Eye-Tracking-BIDS datasets (`BIDSExport`), frame sources
/// (`GazeCapture`), face detection and landmarks (`GazeVision`, its landmark model `ShapeRegression`), facial expressions (`FaceExpression`), calibration (`GazeCalibration`),
/// the session database (`SessionStore`), session export in every format (`SessionExport`), figures of stored sessions (`SessionFigures`), the recorder (`Recorder`) and its
/// Lab Streaming Layer outlets (`LabStreaming`), the stimulus presenter (`StimulusPresenter`), stimulus studies (`StimulusAnalysis`,
/// `StimulusStudy`) and the JSON reader and writer (`JSONStream`): every module the public API of
/// these names, so a program needs no other import. It holds no code of its own.
@_exported import BIDSExport
@_exported import FaceExpression
@_exported import GazeAnalysis
@_exported import GazeCalibration
@_exported import GazeFigures
@_exported import GazeCapture
@_exported import GazeCore
@_exported import GazeModel
@_exported import GazeVision
@_exported import JSONStream
@_exported import LabStreaming
@_exported import Recorder
@_exported import SessionExport
@_exported import SessionFigures
@_exported import SessionStore
@_exported import ShapeRegression
@_exported import StimulusAnalysis
@_exported import StimulusPresenter
@_exported import StimulusStudy
