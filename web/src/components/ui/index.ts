export * from '@/components/ui/alert';
export * from '@/components/ui/badge';
export * from '@/components/ui/button';
export * from '@/components/ui/field';
export * from '@/components/ui/logo';
export * from '@/components/ui/modal';
export * from '@/components/ui/progress-bar';
export * from '@/components/ui/spinner';
