import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ReviewVerdict } from '@/types/api';

export interface ReviewBody {
  worker: number;
  group: string;
  verdict: ReviewVerdict;
  note?: string | null;
}

export interface ReviewsAnswer {
  job_id: string;
  violation_count: number;
}

/** POST /jobs/{id}/reviews: one finding's review (issue 53). */
export function reviewFinding(jobId: string, body: ReviewBody): Promise<ReviewsAnswer> {
  return api.post<ReviewsAnswer>(`/jobs/${encodeURIComponent(jobId)}/reviews`, body);
}

/**
 * Reviews one or more findings of a job, one after the other ("not a worker" is one review per item
 * of the worker), then fetches the job and the lists again: the page's figures follow the reviewed verdict.
 */
export function useReviewFindings(jobId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (bodies: ReviewBody[]) => {
      let last: ReviewsAnswer | null = null;
      for (const body of bodies) last = await reviewFinding(jobId, body);
      return last;
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['jobs'] }),
  });
}
