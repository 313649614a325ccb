import { queryOptions, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { api } from '@/lib/api-client';
import { taskFallbackName } from '@/lib/format';
import type { Task } from '@/types/api';

/** GET /tasks in the UI language; a task without a name gets one made from its slug. */
export async function getTasks(language: string): Promise<Task[]> {
  const tasks = await api.get<Task[]>('/tasks', { headers: { 'Accept-Language': language } });
  return (tasks ?? []).map((task) => ({ slug: task.slug, name: task.name?.trim() || taskFallbackName(task.slug) }));
}

export const tasksQueryOptions = (language: string) =>
  queryOptions({ queryKey: ['tasks', language], queryFn: () => getTasks(language), staleTime: 10 * 60_000 });

export function useTasks() {
  const { i18n } = useTranslation();
  return useQuery(tasksQueryOptions(i18n.language));
}
