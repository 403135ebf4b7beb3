// placeholder: the area A store
export interface MasStore {}
