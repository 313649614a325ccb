import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

/** DELETE /admin/jobs/{id} (jobs that are not queued or running) */
export function deleteJob(jobId: string): Promise<void> {
  return api.delete(`/admin/jobs/${encodeURIComponent(jobId)}`);
}

export function useDeleteJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteJob,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['admin', 'jobs'] }),
  });
}
