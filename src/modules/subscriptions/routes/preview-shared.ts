export const TAGS = ['Previews'];
