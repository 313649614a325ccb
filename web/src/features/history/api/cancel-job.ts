import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** POST /admin/jobs/{id}/cancel (queued or running jobs only) */
export function cancelJob(jobId: string): Promise<unknown> {
  return api.post(`/admin/jobs/${encodeURIComponent(jobId)}/cancel`);
}

export function useCancelJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelJob,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'jobs'] }),
  });
}
