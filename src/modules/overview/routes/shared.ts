export const tags = ['Overview'];
