import { uploadForm, type UploadProgress } from '@/lib/upload';

export type JobTypeChoice = 'auto' | 'manual';
export type Sampling = 'person' | 'uniform';

export interface AnalysisParams {
  /** "auto", or the chosen task's slug for a manual job. */
  job_type: string;
  sampling: Sampling;
  target_composites: number;
  frames_per_composite: number;
  dedupe_by_equipment: boolean;
  /** Where and by whom it was recorded, and its work order (members of an organisation; issue 28). */
  site_id?: string;
  crew_id?: string;
  work_order?: string;
}

export interface StartedJob {
  job_id: string;
  status: string;
}

/** POST /analyze: multipart with the video as `file` and the parameters as a JSON string in `payload`. */
export function startAnalysis(file: File, params: AnalysisParams, onProgress?: (progress: UploadProgress) => void): Promise<StartedJob> {
  const form = new FormData();
  form.append('payload', JSON.stringify(params));
  form.append('file', file, file.name);
  return uploadForm<StartedJob>('/analyze', form, { onProgress });
}
