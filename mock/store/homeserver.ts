// placeholder: the area B store
export interface HomeserverStore {}
