import type { AnalysisParams, JobTypeChoice, Sampling } from '@/features/analyze/api/start-analysis';

export const COMPOSITES = { min: 1, max: 20, default: 6 } as const;
export const FRAMES_PER_COMPOSITE = { min: 2, max: 8, default: 4 } as const;

export interface AnalyzeFormState {
  file: File | null;
  jobType: JobTypeChoice;
  task: string;
  sampling: Sampling;
  composites: number;
  framesPerComposite: number;
  dedupe: boolean;
  advancedOpen: boolean;
  /** The chosen video already became a job: starting again needs a new video or "analyze again". */
  analyzed: boolean;
}

export const initialAnalyzeForm: AnalyzeFormState = {
  file: null,
  jobType: 'auto',
  task: '',
  sampling: 'person',
  composites: COMPOSITES.default,
  framesPerComposite: FRAMES_PER_COMPOSITE.default,
  dedupe: true,
  advancedOpen: false,
  analyzed: false,
};

export type AnalyzeFormEvent =
  | { type: 'FileChosen'; file: File }
  | { type: 'FileRemoved' }
  | { type: 'JobTypeChosen'; jobType: JobTypeChoice; firstTask: string | null }
  | { type: 'TasksLoaded'; firstTask: string | null }
  | { type: 'TaskChosen'; task: string }
  | { type: 'SamplingChosen'; sampling: Sampling }
  | { type: 'CompositesSet'; value: number }
  | { type: 'FramesSet'; value: number }
  | { type: 'DedupeSet'; value: boolean }
  | { type: 'AdvancedToggled' }
  | { type: 'Submitted' }
  | { type: 'AnalyzeAgain' }
  | { type: 'Reset' };

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, Math.round(value)));

export function evolveAnalyzeForm(state: AnalyzeFormState, event: AnalyzeFormEvent): AnalyzeFormState {
  switch (event.type) {
    case 'FileChosen':
      return { ...state, file: event.file, analyzed: false };
    case 'FileRemoved':
      return { ...state, file: null, analyzed: false };
    case 'Submitted':
      return { ...state, analyzed: true };
    case 'AnalyzeAgain':
      return { ...state, analyzed: false };
    case 'JobTypeChosen':
      if (event.jobType === 'auto') return { ...state, jobType: 'auto', task: '' };
      return { ...state, jobType: 'manual', task: state.task || event.firstTask || '' };
    case 'TasksLoaded':
      return state.jobType === 'manual' && !state.task && event.firstTask ? { ...state, task: event.firstTask } : state;
    case 'TaskChosen':
      return { ...state, task: event.task };
    case 'SamplingChosen':
      return { ...state, sampling: event.sampling };
    case 'CompositesSet':
      return { ...state, composites: clamp(event.value, COMPOSITES.min, COMPOSITES.max) };
    case 'FramesSet':
      return { ...state, framesPerComposite: clamp(event.value, FRAMES_PER_COMPOSITE.min, FRAMES_PER_COMPOSITE.max) };
    case 'DedupeSet':
      return { ...state, dedupe: event.value };
    case 'AdvancedToggled':
      return { ...state, advancedOpen: !state.advancedOpen };
    case 'Reset':
      return initialAnalyzeForm;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

export type StartBlocker = 'noFile' | 'submitting' | 'quota' | 'noTask' | 'analyzed';

/** Why analysis cannot start yet (spec section 5), or null when it can. */
export function startBlocker(state: AnalyzeFormState, opts: { submitting: boolean; canAnalyze: boolean }): StartBlocker | null {
  if (!opts.canAnalyze) return 'quota';
  if (!state.file) return 'noFile';
  if (opts.submitting) return 'submitting';
  if (state.analyzed) return 'analyzed';
  if (state.jobType === 'manual' && !state.task) return 'noTask';
  return null;
}

export function toParams(state: AnalyzeFormState): AnalysisParams {
  return {
    job_type: state.jobType === 'manual' ? state.task : 'auto',
    sampling: state.sampling,
    target_composites: state.composites,
    frames_per_composite: state.framesPerComposite,
    dedupe_by_equipment: state.dedupe,
  };
}
